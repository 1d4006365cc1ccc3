import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/adapters/postgres/schema.ts',
  out: './drizzle',
  schemaFilter: ['processor_gateway'],
  migrations: { schema: 'drizzle', table: 'processor_gateway_migrations' },
});
