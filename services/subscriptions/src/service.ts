import path from 'node:path';
import { createApp } from '@payrail/http';
import { createOutboxRelay } from '@payrail/messaging';
import type { ServiceDefinition } from '@payrail/runtime';
import { subscriptionsRoutes } from './adapters/http/routes';
import { activateSubscriptionOnLinkPaid } from './adapters/messaging/activate-subscription-on-link-paid.consumer';
import { createSubscriptionOnLinkCreated } from './adapters/messaging/create-subscription-on-link-created.consumer';
import { inbox, outbox } from './adapters/postgres/schema';
import { postgresSubscriptionStore } from './adapters/postgres/subscription-store';

export const subscriptionsService: ServiceDefinition = {
  name: 'subscriptions',
  defaultPort: 3002,
  database: { schema: 'subscriptions', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
  async create({ database, bus, logger, clock, internalSecret }) {
    const { app, markNotReady } = createApp({
      service: 'subscriptions',
      logger,
      readiness: {
        database: () => database.ping(),
        broker: () => {
          if (!bus.isReady()) throw new Error('broker not connected');
        },
      },
    });
    app.route(
      '/api',
      subscriptionsRoutes({ store: postgresSubscriptionStore(database.db), clock, internalSecret }),
    );
    const relay = createOutboxRelay({ database, outbox, schemaName: 'subscriptions', bus, logger });
    return {
      app,
      markNotReady,
      async start() {
        await bus.subscribe(createSubscriptionOnLinkCreated(database.db, inbox, clock));
        await bus.subscribe(activateSubscriptionOnLinkPaid(database.db, inbox, clock, logger));
        await relay.start();
      },
      stop: () => relay.stop(),
    };
  },
};
