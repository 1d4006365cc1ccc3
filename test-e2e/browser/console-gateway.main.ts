import '@payrail/observability/register';
import { createGatewayService } from '@payrail/gateway';
import { runStandalone } from '@payrail/runtime';
import { testConsoleSignIn } from './console-sign-in';

// The gateway process of the console's browser tests: the real gateway with the test sign-in
// (`console-sign-in.ts`) in place of the console's own, which the lead swaps in when it lands.
void runStandalone(createGatewayService({ consoleSignIn: testConsoleSignIn }));
