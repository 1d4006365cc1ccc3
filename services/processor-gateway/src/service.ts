import path from 'node:path';
import { PROCESSOR_GATEWAY_ERRORS } from '@payrail/contracts';
import { createApp } from '@payrail/http';
import { createOutboxRelay, postgresUnitOfWork } from '@payrail/messaging';
import { registerChargesProbe } from '@payrail/observability';
import { readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import { refundRoutes } from './adapters/http/refund-routes';
import { reportRoutes } from './adapters/http/report-routes';
import { httpSubscriptionStates } from './adapters/http/subscription-states';
import { internalRoutes } from './adapters/http/routes';
import { webhookRoutes } from './adapters/http/webhooks';
import { chargeOnChargeRequested } from './adapters/messaging/charge-on-charge-requested.consumer';
import { recordMovementsOnMoneyEvents } from './adapters/messaging/record-movements-on-money-events.consumer';
import { countChargesByOutcome } from './adapters/postgres/charge-metrics';
import { gatewayStores, postgresTransaction } from './adapters/postgres/stores';
import { inbox, outbox } from './adapters/postgres/schema';
import { bankTransfers } from './bank-transfers';
import { createCardProcessors } from './adapters/processors';
import { type ChargeJanitor, createChargeJanitor } from './application/charge-janitor';
import { createRefundJanitor, type RefundJanitor } from './application/refund-janitor';
import type { ChargeDeps } from './application/settle-charge';
import { loadConfig, type ProcessorGatewayConfig } from './config';
import type { CardProcessors } from './ports/card-processor';

export interface ProcessorGatewayOptions {
  /** The processors to talk to; default: the adapters, configured from the environment. */
  cardProcessors?: (config: ProcessorGatewayConfig) => CardProcessors;
  /** Hands the running parts to a test or an operator tool (the janitor can then be run on demand). */
  onCreated?: (parts: {
    janitor: ChargeJanitor;
    refundJanitor: RefundJanitor;
    deps: ChargeDeps;
    config: ProcessorGatewayConfig;
  }) => void;
}

export function createProcessorGatewayService(options: ProcessorGatewayOptions = {}): ServiceDefinition {
  return {
    name: 'processor-gateway',
    defaultPort: 3004,
    database: { schema: 'processor_gateway', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
    loadConfig,
    async create({ database, bus, logger, clock, env, internalSecret, upstream }) {
      const config = loadConfig(env);
      const processors =
        options.cardProcessors?.(config) ?? createCardProcessors(config.processors, { logger, clock });
      const deps: ChargeDeps = {
        stores: gatewayStores(database.db),
        transaction: postgresTransaction(database.db),
        processors,
        clock,
        timings: config.timings,
      };
      const unitOfWork = postgresUnitOfWork({ db: database.db, inbox, stores: gatewayStores });
      const janitor = createChargeJanitor(deps, config.janitorIntervalMs, logger);
      // Refunds are settled by a janitor of their own, on the charges' interval and timings.
      const refundJanitor = createRefundJanitor({ ...deps, logger }, config.janitorIntervalMs, logger);
      const { app, markNotReady } = createApp({
        service: 'processor-gateway',
        logger,
        errors: PROCESSOR_GATEWAY_ERRORS,
        maxBodyBytes: config.maxBodyBytes,
        readiness: readinessChecks({ database, bus }),
      });
      app.route('/internal', internalRoutes({ ...deps, internalSecret }));
      app.route('/webhooks', webhookRoutes(deps, logger));
      const transfers = bankTransfers({
        db: database.db,
        clock,
        logger,
        internalSecret,
        upstream,
        sweepIntervalMs: config.bankTransferSweepIntervalMs,
      });
      app.route('/api', transfers.routes);
      app.route('/api', refundRoutes({ ...deps, logger, internalSecret }));
      app.route(
        '/api',
        reportRoutes({
          internalSecret,
          ledger: deps.stores.ledger,
          clock,
          subscriptionStates: httpSubscriptionStates({
            subscriptions: upstream('subscriptions'),
            internalSecret,
          }),
        }),
      );
      const relay = createOutboxRelay({
        database,
        outbox,
        schemaName: 'processor_gateway',
        bus,
        logger,
        keepPublished: config.keepPublished,
      });
      options.onCreated?.({ janitor, refundJanitor, deps, config });
      let unregisterChargeMetrics: (() => void) | undefined;
      return {
        app,
        markNotReady,
        async start() {
          await bus.subscribe(chargeOnChargeRequested(deps, logger));
          await bus.subscribe(recordMovementsOnMoneyEvents(unitOfWork));
          await relay.start();
          janitor.start();
          refundJanitor.start();
          transfers.start();
          unregisterChargeMetrics = registerChargesProbe(() => countChargesByOutcome(database.db));
        },
        async stop() {
          unregisterChargeMetrics?.();
          await transfers.stop();
          await janitor.stop();
          await refundJanitor.stop();
          await relay.stop();
        },
      };
    },
  };
}

/** Charges, the card vault and processor confirmations (README). */
export const processorGatewayService = createProcessorGatewayService();
