// `npm run migrate`: applies every service's migrations to DATABASE_URL (one-shot, as in compose).
import { openDatabase } from '@payrail/db';
import { allServices } from './services';

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('DATABASE_URL is required: the PostgreSQL database to migrate\n');
    process.exit(1);
  }
  const database = openDatabase({ url, max: 1 });
  try {
    for (const service of allServices) {
      if (!service.database) continue;
      await database.migrate(service.database);
      process.stdout.write(`[migrate] ${service.name}: schema ${service.database.schema} up to date\n`);
    }
  } finally {
    await database.close();
  }
}

void main();
