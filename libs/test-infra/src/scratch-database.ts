import postgres from 'postgres';
import { uniqueName } from './infra';

// No vitest here: a script run outside a test (the chaos run) makes its database the same way.

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates a fresh, empty database named `<prefix>_<unique>` on the server of `adminUrl`. */
export async function createScratchDatabase(adminUrl: string, prefix = 'test'): Promise<TestDatabase> {
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
