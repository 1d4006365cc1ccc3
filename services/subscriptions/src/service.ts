import path from 'node:path';
import { SUBSCRIPTION_ERRORS } from '@payrail/contracts';
import { createApp } from '@payrail/http';
import { createOutboxRelay, postgresUnitOfWork } from '@payrail/messaging';
import { readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import { bankTransferRoutes } from './adapters/http/bank-transfer-routes';
import { reportRoutes } from './adapters/http/report-routes';
import { payPageRoutes } from './adapters/http/pay-page-routes';
import { subscriptionsRoutes } from './adapters/http/routes';
import { activateSubscriptionOnLinkPaid } from './adapters/messaging/activate-subscription-on-link-paid.consumer';
import { createSubscriptionOnLinkCreated } from './adapters/messaging/create-subscription-on-link-created.consumer';
import { failInstallmentOnDunningExhausted } from './adapters/messaging/fail-installment-on-dunning-exhausted.consumer';
import { forgetCardOnPaymentMethodRemoved } from './adapters/messaging/forget-card-on-payment-method-removed.consumer';
import { payInstallmentOnPaymentSucceeded } from './adapters/messaging/pay-installment-on-payment-succeeded.consumer';
import { recordDeclineOnPaymentFailed } from './adapters/messaging/record-decline-on-payment-failed.consumer';
import { recordRetryOnRetryScheduled } from './adapters/messaging/record-retry-on-retry-scheduled.consumer';
import { replaceCardOnPaymentMethodSaved } from './adapters/messaging/replace-card-on-payment-method-saved.consumer';
import { requestChargeOnChargeDue } from './adapters/messaging/request-charge-on-charge-due.consumer';
import { inbox, outbox } from './adapters/postgres/schema';
import { subscriptionStores } from './adapters/postgres/stores';
import { loadConfig } from './config';

export const subscriptionsService: ServiceDefinition = {
  name: 'subscriptions',
  defaultPort: 3002,
  database: { schema: 'subscriptions', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
  loadConfig,
  async create({ database, bus, logger, clock, internalSecret, env }) {
    const settings = loadConfig(env);
    const { app, markNotReady } = createApp({
      service: 'subscriptions',
      logger,
      errors: SUBSCRIPTION_ERRORS,
      maxBodyBytes: settings.MAX_BODY_BYTES,
      readiness: readinessChecks({ database, bus }),
    });
    const stores = subscriptionStores(database.db);
    app.route('/api', subscriptionsRoutes({ stores, clock, internalSecret }));
    app.route('/internal', bankTransferRoutes({ stores, clock, internalSecret }));
    // links' pay page: the schedule as it is now, where the customer agrees to it; the customer's own page.
    app.route('/internal', payPageRoutes({ stores, clock, internalSecret }));
    // processor-gateway's report summary: subscriptions by state at the end of its range.
    app.route('/internal', reportRoutes({ stores, internalSecret }));
    const unitOfWork = postgresUnitOfWork({ db: database.db, inbox, stores: subscriptionStores });
    const relay = createOutboxRelay({
      database,
      outbox,
      schemaName: 'subscriptions',
      bus,
      logger,
      keepPublished: settings.OUTBOX_KEEP_PUBLISHED,
    });
    return {
      app,
      markNotReady,
      async start() {
        // Each consumer declares its queues on its own channel: all at once, not one after the other.
        await Promise.all([
          bus.subscribe(createSubscriptionOnLinkCreated(unitOfWork, clock)),
          bus.subscribe(activateSubscriptionOnLinkPaid(unitOfWork, clock, logger)),
          // Automatic debit.
          bus.subscribe(requestChargeOnChargeDue(unitOfWork, clock, logger)),
          bus.subscribe(payInstallmentOnPaymentSucceeded(unitOfWork, clock, logger)),
          bus.subscribe(recordDeclineOnPaymentFailed(unitOfWork, clock)),
          bus.subscribe(recordRetryOnRetryScheduled(unitOfWork, clock)),
          bus.subscribe(failInstallmentOnDunningExhausted(unitOfWork, clock)),
          bus.subscribe(forgetCardOnPaymentMethodRemoved(unitOfWork, clock)),
          bus.subscribe(replaceCardOnPaymentMethodSaved(unitOfWork, clock)),
        ]);
        await relay.start();
      },
      stop: () => relay.stop(),
    };
  },
};
