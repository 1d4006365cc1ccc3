import { defineConfig } from 'vitest/config';

const globalSetup = ['libs/test-infra/src/global-setup.ts'];

// Three projects: fast unit tests (no servers), integration tests on real Postgres and RabbitMQ
// (`*.int.test.ts`), and end-to-end tests that start the services as separate processes.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['libs/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['libs/*/test/**/*.int.test.ts', 'services/*/test/**/*.int.test.ts'],
          globalSetup,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test-e2e/**/*.e2e.test.ts'],
          globalSetup,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
