import { inject } from 'vitest';
import postgres from 'postgres';
import { uniqueName } from './infra';

/** The PostgreSQL server URL chosen by the global setup (admin database). */
export function testPostgresUrl(): string {
  return inject('postgresUrl') ?? process.env.TEST_POSTGRES_URL;
}

/** The RabbitMQ URL chosen by the global setup. */
export function testAmqpUrl(): string {
  return inject('amqpUrl') ?? process.env.TEST_AMQP_URL;
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates a fresh, empty database for one test file on the test server. */
export async function createTestDatabase(prefix = 'test'): Promise<TestDatabase> {
  const adminUrl = testPostgresUrl();
  const name = uniqueName(prefix).toLowerCase();
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await sql.end();
      }
    },
  };
}
