import { createApp } from '@payrail/http';
import type { ServiceDefinition } from '@payrail/runtime';
import { ProcessorA } from './application/processor-a';
import { ProcessorB } from './application/processor-b';
import { PROCESSOR_A, type ProcessorId } from './application/processors';
import { createCoreParts, type SandboxCore, type SandboxSettings } from './application/sandbox-state';
import { SimulatedClock } from './application/simulated-clock';
import { WebhookDispatcher, type WebhookTransport } from './application/webhooks';
import { hostedARoutes } from './adapters/http/hosted-a-routes';
import { hostedBRoutes } from './adapters/http/hosted-b-routes';
import { processorARoutes } from './adapters/http/processor-a-routes';
import { processorBRoutes } from './adapters/http/processor-b-routes';
import { testApiRoutes } from './adapters/http/test-api-routes';

const DUE_WORK_INTERVAL_MS = 1_000;

export function settingsFromEnv(env: Record<string, string | undefined>): SandboxSettings {
  const publicBase = (env.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '');
  return {
    processorA: {
      publicKey: env.SANDBOX_PROCESSOR_A_PUBLIC_KEY || 'sandbox-a-public',
      privateKey: env.SANDBOX_PROCESSOR_A_PRIVATE_KEY || 'sandbox-a-private',
      webhookUrl: env.SANDBOX_PROCESSOR_A_WEBHOOK_URL || undefined,
    },
    processorB: {
      publicKey: env.SANDBOX_PROCESSOR_B_PUBLIC_KEY || 'sandbox-b-public',
      privateKey: env.SANDBOX_PROCESSOR_B_PRIVATE_KEY || 'sandbox-b-private',
      notificationUrl: env.SANDBOX_PROCESSOR_B_NOTIFICATION_URL || undefined,
      returnUrlTemplate:
        env.SANDBOX_PROCESSOR_B_RETURN_URL || `${publicBase}/pay/processor-b/return?hash=($hash)`,
    },
  };
}

/** Port = gateway port + 5 unless `SANDBOX_PORT` says otherwise (0 stays 0: a free port, for tests). */
export function sandboxPort(env: Record<string, string | undefined>, gatewayPort: number): number {
  if (env.SANDBOX_PORT) return Number(env.SANDBOX_PORT);
  return gatewayPort === 0 ? 0 : gatewayPort + 5;
}

/**
 * Stands in for the two external card processors in development and tests; never deployed to
 * production. No database: its state lives in memory and a restart forgets it.
 */
export const processorSandboxService: ServiceDefinition = {
  name: 'processor-sandbox',
  defaultPort: 3005,
  // Browsers load its card forms, so even embedded it listens on its own origin.
  embeddedListener: { port: sandboxPort, urlVariable: 'PROCESSOR_SANDBOX_URL' },
  async create({ logger, clock: serviceClock, env, upstream }) {
    const { app, markNotReady } = createApp({ service: 'processor-sandbox', logger });
    const initialSettings = () => settingsFromEnv(env);
    const settings = initialSettings();
    const clock = new SimulatedClock(serviceClock);
    const parts = createCoreParts();

    const transport: WebhookTransport = async (processor: ProcessorId, body) => {
      const configured =
        processor === PROCESSOR_A ? settings.processorA.webhookUrl : settings.processorB.notificationUrl;
      const path = processor === PROCESSOR_A ? '/webhooks/processor-a' : '/webhooks/processor-b';
      const init = {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      };
      const response = configured
        ? await fetch(configured, { ...init, signal: AbortSignal.timeout(30_000) })
        : await upstream('processor-gateway')(new Request(`http://processor-gateway${path}`, init));
      return {
        status: response.status,
        text: await response.text(),
        url: configured ?? `processor-gateway${path}`,
      };
    };

    const core: SandboxCore = {
      settings,
      clock,
      logger,
      ...parts,
      webhooks: new WebhookDispatcher(transport, parts.faults, clock, logger),
    };
    const processorA = new ProcessorA(core);
    const processorB = new ProcessorB(core);

    let running = false;
    const runDue = async () => {
      if (running) return;
      running = true;
      try {
        await processorB.runDue();
        await core.webhooks.runDue();
      } finally {
        running = false;
      }
    };
    const reset = () => {
      Object.assign(settings.processorA, initialSettings().processorA);
      Object.assign(settings.processorB, initialSettings().processorB);
      clock.reset();
      core.ledger.clear();
      core.faults.clear();
      core.outcomes.clear();
      core.webhooks.reset();
      processorA.reset();
      processorB.reset();
    };

    app.route('/', processorARoutes(core, processorA));
    app.route('/', hostedARoutes(core, processorA));
    app.route('/', processorBRoutes(core, processorB));
    app.route('/', hostedBRoutes(core, processorB));
    app.route('/', testApiRoutes(core, { a: processorA, b: processorB }, { runDue, reset }));

    let ticker: NodeJS.Timeout | undefined;
    return {
      app,
      markNotReady,
      start: async () => {
        logger.info(
          'processor-sandbox: simulated processors A and B; state in memory only, forgotten on restart',
        );
        ticker = setInterval(() => {
          runDue().catch((error) => logger.error({ err: error }, 'sandbox due work failed'));
        }, DUE_WORK_INTERVAL_MS);
        ticker.unref();
      },
      stop: async () => {
        if (ticker) clearInterval(ticker);
        reset();
      },
    };
  },
};
