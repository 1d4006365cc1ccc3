import { inject } from 'vitest';
import { createScratchDatabase, type TestDatabase } from './scratch-database';

export type { TestDatabase };

/** The PostgreSQL server URL chosen by the global setup (admin database). */
export function testPostgresUrl(): string {
  return inject('postgresUrl') ?? process.env.TEST_POSTGRES_URL;
}

/** The RabbitMQ URL chosen by the global setup. */
export function testAmqpUrl(): string {
  return inject('amqpUrl') ?? process.env.TEST_AMQP_URL;
}

/** Creates a fresh, empty database for one test file on the test server. */
export function createTestDatabase(prefix = 'test'): Promise<TestDatabase> {
  return createScratchDatabase(testPostgresUrl(), prefix);
}
