import path from 'node:path';
import { BILLING_ERRORS } from '@payrail/contracts';
import { createApp } from '@payrail/http';
import { createOutboxRelay, postgresUnitOfWork } from '@payrail/messaging';
import { readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import {
  claimRunUntilDone,
  type RunDeps,
  resumeUnfinishedRuns,
  runScheduled,
  startOperatorRun,
} from './application/run-billing';
import { loadConfig } from './config';
import type { BillingRun } from './domain/billing-run';
import { billingAdminRoutes } from './adapters/http/routes';
import { projectInstallmentsOnSubscriptionEvents } from './adapters/messaging/project-installments-on-subscription-events.consumer';
import { recordChargeOutcomesOnChargeOutcomes } from './adapters/messaging/record-charge-outcomes-on-charge-outcomes.consumer';
import { postgresDunningPolicyStore } from './adapters/postgres/dunning-policy-store';
import { postgresRunStore } from './adapters/postgres/run-store';
import { inbox, outbox } from './adapters/postgres/schema';
import { billingStores } from './adapters/postgres/stores';

/** An operator run whose claim has not finished this long after it started is taken over by the ticker. */
const STALE_RUN_MS = 60_000;

/** Decides when to charge: the due-charge projection, billing runs (every minute and on demand), dunning. */
export const billingSchedulerService: ServiceDefinition = {
  name: 'billing-scheduler',
  defaultPort: 3003,
  database: { schema: 'billing_scheduler', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
  loadConfig,
  async create({ database, bus, logger, env, clock, internalSecret }) {
    const settings = loadConfig(env);
    const { app, markNotReady } = createApp({
      service: 'billing-scheduler',
      logger,
      errors: BILLING_ERRORS,
      maxBodyBytes: settings.MAX_BODY_BYTES,
      readiness: readinessChecks({ database, bus }),
    });
    const deps: RunDeps = {
      runs: postgresRunStore(database.db),
      clock,
      simulatedTime: settings.SIMULATED_TIME,
      batchSize: settings.BILLING_CLAIM_BATCH,
      lockWaitMs: 5_000,
      reclaimAfterMs: settings.BILLING_RECLAIM_AFTER_MS,
      logger,
    };
    const inFlight = new Set<Promise<unknown>>();
    let stopped = false;
    const track = (work: Promise<unknown>, what: string) => {
      const tracked = work
        .catch((error) => logger.error({ err: error }, `${what} failed`))
        .finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    };
    app.route(
      '/admin',
      billingAdminRoutes({
        ...deps,
        policies: postgresDunningPolicyStore(database.db),
        internalSecret,
        startOperatorRun: (request) => startOperatorRun(deps, request),
        claimInBackground: (run: BillingRun) =>
          track(claimRunUntilDone(deps, run, { stopping: () => stopped }), `billing run ${run.id}`),
      }),
    );
    const unitOfWork = postgresUnitOfWork({ db: database.db, inbox, stores: billingStores });
    const relay = createOutboxRelay({
      database,
      outbox,
      schemaName: 'billing_scheduler',
      bus,
      logger,
      keepPublished: settings.OUTBOX_KEEP_PUBLISHED,
    });

    let timer: NodeJS.Timeout | undefined;
    const tick = async () => {
      try {
        await resumeUnfinishedRuns(deps, new Date(clock.now().getTime() - STALE_RUN_MS));
        const claimed = await runScheduled(deps);
        if (claimed > 0) logger.info({ claimed }, 'scheduled billing run claimed due installments');
      } catch (error) {
        logger.error({ err: error }, 'scheduled billing run failed; next tick retries');
      }
      if (!stopped)
        timer = setTimeout(() => track(tick(), 'scheduled billing run'), settings.BILLING_RUN_INTERVAL_MS);
    };

    return {
      app,
      markNotReady,
      async start() {
        await Promise.all([
          bus.subscribe(projectInstallmentsOnSubscriptionEvents(unitOfWork)),
          bus.subscribe(recordChargeOutcomesOnChargeOutcomes(unitOfWork, clock)),
        ]);
        await relay.start();
        // A run this process or another left half-claimed (it stopped) is claimed to the end now.
        track(resumeUnfinishedRuns(deps, clock.now()), 'resuming unfinished billing runs');
        if (settings.BILLING_RUN_INTERVAL_MS > 0) {
          timer = setTimeout(() => track(tick(), 'scheduled billing run'), settings.BILLING_RUN_INTERVAL_MS);
        }
      },
      async stop() {
        stopped = true;
        if (timer) clearTimeout(timer);
        await Promise.allSettled([...inFlight]);
        await relay.stop();
      },
    };
  },
};

/** What the projection takes in, and its consumer's name: tests wait on its inbox to know it is still. */
export { PROJECTED_EVENTS } from './application/project-installment-events';
export { PROJECTION_CONSUMER } from './adapters/messaging/project-installments-on-subscription-events.consumer';
