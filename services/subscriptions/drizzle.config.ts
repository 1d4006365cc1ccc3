import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/adapters/postgres/schema.ts',
  out: './drizzle',
  schemaFilter: ['subscriptions'],
  migrations: { schema: 'drizzle', table: 'subscriptions_migrations' },
});
