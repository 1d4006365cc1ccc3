import path from 'node:path';
import { createApp, maxBodyBytesFrom } from '@payrail/http';
import { createOutboxRelay } from '@payrail/messaging';
import { readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import { outbox } from './adapters/postgres/schema';

/** Starts, connects to its database and the broker, and consumes nothing yet (walking skeleton). */
export const billingSchedulerService: ServiceDefinition = {
  name: 'billing-scheduler',
  defaultPort: 3003,
  database: { schema: 'billing_scheduler', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
  async create({ database, bus, logger, env }) {
    const { app, markNotReady } = createApp({
      service: 'billing-scheduler',
      logger,
      maxBodyBytes: maxBodyBytesFrom(env),
      readiness: readinessChecks({ database, bus }),
    });
    const relay = createOutboxRelay({ database, outbox, schemaName: 'billing_scheduler', bus, logger });
    return { app, markNotReady, start: () => relay.start(), stop: () => relay.stop() };
  },
};
