import { createApp } from '@payrail/http';
import type { ServiceDefinition } from '@payrail/runtime';

/**
 * Stands in for the two external card processors in development and tests; never deployed to
 * production. For now it answers its health check; the simulated processors come with payments.
 */
export const processorSandboxService: ServiceDefinition = {
  name: 'processor-sandbox',
  defaultPort: 3005,
  async create({ logger }) {
    const { app, markNotReady } = createApp({ service: 'processor-sandbox', logger });
    return { app, markNotReady, start: async () => {}, stop: async () => {} };
  },
};
