import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/adapters/postgres/schema.ts',
  out: './drizzle',
  schemaFilter: ['billing_scheduler'],
  migrations: { schema: 'drizzle', table: 'billing_scheduler_migrations' },
});
