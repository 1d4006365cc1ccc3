import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/adapters/postgres/schema.ts',
  out: './drizzle',
  schemaFilter: ['gateway'],
  migrations: { schema: 'drizzle', table: 'gateway_migrations' },
});
