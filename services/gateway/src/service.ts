import path from 'node:path';
import type { MerchantContext } from '@payrail/contracts';
import { parseConfig } from '@payrail/config';
import {
  answerMethodNotAllowed,
  createApp,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  maxBodyBytesFrom,
} from '@payrail/http';
import { readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import { z } from 'zod';
import { hashToken, looksLikeToken } from './application/api-tokens';
import { devMailboxRoute } from './adapters/http/dev-mailbox';
import { docsRoutes } from './adapters/http/docs';
import { idempotency } from './adapters/http/idempotency';
import { merchantAuth } from './adapters/http/merchant-auth';
import { clientAddressOf, forwardPublicPage } from './adapters/http/forward';
import { adminRoutes, merchantApiRoutes } from './adapters/http/routes';
import { postgresIdempotencyStore } from './adapters/postgres/idempotency-store';
import { cachedMerchantStore } from './adapters/postgres/cached-merchant-store';
import { postgresMerchantStore } from './adapters/postgres/merchant-store';

/**
 * The demo merchant created at start when `DEMO_API_TOKEN` is set; that token is its only live one (a
 * start with another token revokes the previous one).
 */
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

const gatewayEnvSchema = z.object({
  /** How long a forwarded call may take, answer included, before the merchant gets a 504. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_UPSTREAM_TIMEOUT_MS),
  /** How long a live Api-Token's merchant is cached (revocations reach every replica at once by NOTIFY); 0: off. */
  TOKEN_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
});

/** Expired idempotency records are purged this often (they are ignored once expired anyway). */
const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60_000;

/** The only public edge: authenticates merchants and operators, and forwards to the owning service. */
export const gatewayService: ServiceDefinition = {
  name: 'gateway',
  defaultPort: 3000,
  database: { schema: 'gateway', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
  async create({ database, bus, logger, clock, internalSecret, env, upstream }) {
    const settings = parseConfig(gatewayEnvSchema, env);
    const merchants = cachedMerchantStore(postgresMerchantStore(database.db), database, logger, {
      ttlMs: settings.TOKEN_CACHE_TTL_MS,
    });
    const idempotencyStore = postgresIdempotencyStore(database.db, { secret: internalSecret });
    const demoToken = env.DEMO_API_TOKEN;
    if (demoToken) {
      if (!looksLikeToken(demoToken)) throw new Error('DEMO_API_TOKEN must be a UUID');
      if (!(await merchants.ensureMerchantWithOnlyToken(DEMO_MERCHANT, hashToken(demoToken), clock.now())))
        throw new Error('DEMO_API_TOKEN is already the token of another merchant: choose another UUID');
    }
    const { app, markNotReady } = createApp({
      service: 'gateway',
      logger,
      maxBodyBytes: maxBodyBytesFrom(env),
      readiness: readinessChecks({ database, bus }),
    });
    app.route('/', docsRoutes());
    app.route('/', devMailboxRoute(upstream('links')));
    const forward = { internalSecret, timeoutMs: settings.UPSTREAM_TIMEOUT_MS };
    app.route(
      '/admin',
      adminRoutes({ merchants, clock, adminToken: env.ADMIN_TOKEN || undefined, upstream, forward }),
    );
    app.use('/api/*', merchantAuth(merchants));
    app.use('/api/*', idempotency({ idempotency: idempotencyStore, clock }));
    // The hosted pay page: public (a customer's browser, no token), served by links.
    const payPages = upstream('links');
    app.all('/pay/*', (c) =>
      forwardPublicPage(c, payPages, clientAddressOf(c), { timeoutMs: settings.UPSTREAM_TIMEOUT_MS }),
    );
    merchantApiRoutes(app, { upstream, forward });
    answerMethodNotAllowed(app);

    let purgeTimer: NodeJS.Timeout | undefined;
    const purge = async () => {
      try {
        const purged = await idempotencyStore.deleteExpired(clock.now());
        if (purged > 0) logger.info({ purged }, 'expired idempotency records purged');
      } catch (error) {
        logger.warn({ err: error }, 'idempotency purge failed; will retry');
      }
    };
    return {
      app,
      markNotReady,
      async start() {
        await merchants.start();
        purgeTimer = setInterval(purge, IDEMPOTENCY_PURGE_INTERVAL_MS);
        purgeTimer.unref();
      },
      async stop() {
        if (purgeTimer) clearInterval(purgeTimer);
        await merchants.stop();
      },
    };
  },
};
