import { SANDBOX_ERRORS } from '@payrail/contracts';
import { createApp } from '@payrail/http';
import type { ServiceDefinition } from '@payrail/runtime';
import { ProcessorA } from './application/processor-a';
import { ProcessorB } from './application/processor-b';
import { PROCESSOR_A, type ProcessorId } from './application/processors';
import { createCoreParts, type SandboxCore } from './application/sandbox-state';
import { SimulatedClock } from './application/simulated-clock';
import { WebhookDispatcher, type WebhookTransport } from './application/webhooks';
import { hostedARoutes } from './adapters/http/hosted-a-routes';
import { hostedBRoutes } from './adapters/http/hosted-b-routes';
import { processorARoutes } from './adapters/http/processor-a-routes';
import { processorBRoutes } from './adapters/http/processor-b-routes';
import { testApiRoutes } from './adapters/http/test-api-routes';
import { loadConfig, sandboxPort, sandboxSettings } from './config';

const DUE_WORK_INTERVAL_MS = 1_000;

/**
 * Stands in for the two external card processors in development and tests; never deployed to
 * production. No database: its state lives in memory and a restart forgets it.
 */
export const processorSandboxService: ServiceDefinition = {
  name: 'processor-sandbox',
  defaultPort: 3005,
  // Browsers load its card forms, so even embedded it listens on its own origin.
  embeddedListener: { port: sandboxPort, urlVariable: 'PROCESSOR_SANDBOX_URL' },
  loadConfig,
  async create({ logger, clock: serviceClock, env, upstream }) {
    const config = loadConfig(env);
    const { app, markNotReady } = createApp({ service: 'processor-sandbox', logger, errors: SANDBOX_ERRORS });
    const initialSettings = () => sandboxSettings(config);
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
