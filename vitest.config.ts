import { defineConfig } from 'vitest/config';

const globalSetup = ['libs/test-infra/src/global-setup.ts'];
// The services' outbox relays keep what they published (marked, not deleted): the suites read the events a
// service emitted from its outbox. Deployments delete them; the relay's own tests and the skeleton e2e
// test check that way, and the bench's smoke test runs it.
const env = { OUTBOX_KEEP_PUBLISHED: 'true' };

// Four projects: fast unit tests (no servers), integration tests on real Postgres and RabbitMQ
// (`*.int.test.ts`), end-to-end tests that start the services as separate processes, and the browser
// tests (`*.browser.test.ts`): the same system driven through Debian's Chromium by playwright-core.
// Unit and integration files run two at a time: Vitest's default is one fewer than the cores, which is one
// on the two-core machines CI runs on, and waiting on PostgreSQL or RabbitMQ leaves a core idle. The
// end-to-end and browser files stay one at a time (each starts a whole system).
const TWO_AT_A_TIME = 2;
// End-to-end files of several minutes that mostly wait (a fixed-rate load; restarts one process at a time).
const LONG_E2E = ['test-e2e/soak.e2e.test.ts', 'test-e2e/rolling-restart.e2e.test.ts'];
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          maxWorkers: TWO_AT_A_TIME,
          include: ['libs/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'architecture/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          maxWorkers: TWO_AT_A_TIME,
          include: ['libs/*/test/**/*.int.test.ts', 'services/*/test/**/*.int.test.ts'],
          globalSetup,
          env,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test-e2e/**/*.e2e.test.ts'],
          exclude: [...LONG_E2E, '**/node_modules/**'],
          globalSetup,
          env,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        // The long files that mostly wait: `npm test` runs them beside the browser files (scripts/test.ts).
        test: {
          name: 'e2e-long',
          include: LONG_E2E,
          globalSetup,
          env,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test-e2e/browser/**/*.browser.test.ts'],
          globalSetup: [...globalSetup, 'test-e2e/browser/global-setup.ts'],
          env,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
