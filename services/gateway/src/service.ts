import path from 'node:path';
import type { MerchantContext } from '@payrail/contracts';
import { createApp, problems } from '@payrail/http';
import type { ServiceDefinition } from '@payrail/runtime';
import { forwardToService, ownerOf } from './adapters/http/forward';
import { merchantAuth } from './adapters/http/merchant-auth';
import { postgresMerchantStore } from './adapters/postgres/merchant-store';
import { hashToken, looksLikeToken } from './domain/api-token';

/** The demo merchant created at start when `DEMO_API_TOKEN` is set. */
export const DEMO_MERCHANT: MerchantContext = {
  merchantId: '5f0c6d1e-2b7a-4c59-9d3e-7a1b2c3d4e5f',
  name: 'Demo merchant',
  instance: 'NATIONAL',
  currency: 'PYG',
  saasContract: true,
  noLoginEnabled: true,
  callbackUrl: 'https://shop.example.com/payments/callback',
  timezone: 'America/Asuncion',
  processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
};

/** The only public edge: authenticates merchants and forwards to the owning service. */
export const gatewayService: ServiceDefinition = {
  name: 'gateway',
  defaultPort: 3000,
  database: { schema: 'gateway', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
  async create({ database, bus, logger, internalSecret, env, upstream }) {
    const store = postgresMerchantStore(database.db);
    const demoToken = env.DEMO_API_TOKEN;
    if (demoToken) {
      if (!looksLikeToken(demoToken)) throw new Error('DEMO_API_TOKEN must be a UUID');
      await store.ensureMerchantWithToken(DEMO_MERCHANT, hashToken(demoToken));
    }
    const { app, markNotReady } = createApp({
      service: 'gateway',
      logger,
      readiness: {
        database: () => database.ping(),
        broker: () => {
          if (!bus.isReady()) throw new Error('broker not connected');
        },
      },
    });
    app.use('/api/*', merchantAuth(store));
    app.all('/api/*', async (c) => {
      const owner = ownerOf(c.req.path);
      if (!owner) throw problems.notFound(`No route for ${c.req.method} ${c.req.path}`);
      return forwardToService(c, upstream(owner), c.get('merchant' as never), internalSecret);
    });
    return { app, markNotReady, start: async () => {}, stop: async () => {} };
  },
};
