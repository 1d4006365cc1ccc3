import path from 'node:path';
import { createApp, maxBodyBytesFrom } from '@payrail/http';
import { createOutboxRelay } from '@payrail/messaging';
import { readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import { outbox } from './adapters/postgres/schema';

/** Starts, connects to its database and the broker, and consumes nothing yet (walking skeleton). */
export const processorGatewayService: ServiceDefinition = {
  name: 'processor-gateway',
  defaultPort: 3004,
  database: { schema: 'processor_gateway', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
  async create({ database, bus, logger, env }) {
    const { app, markNotReady } = createApp({
      service: 'processor-gateway',
      logger,
      maxBodyBytes: maxBodyBytesFrom(env),
      readiness: readinessChecks({ database, bus }),
    });
    const relay = createOutboxRelay({ database, outbox, schemaName: 'processor_gateway', bus, logger });
    return { app, markNotReady, start: () => relay.start(), stop: () => relay.stop() };
  },
};
