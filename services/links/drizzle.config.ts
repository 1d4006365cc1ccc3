import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/adapters/postgres/schema.ts',
  out: './drizzle',
  schemaFilter: ['links'],
  migrations: { schema: 'drizzle', table: 'links_migrations' },
});
