import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createApp, maxBodyBytesFrom } from '@payrail/http';
import { createOutboxRelay } from '@payrail/messaging';
import { readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import { bankTransferRoutes } from './adapters/http/bank-transfer-routes';
import { payRoutes } from './adapters/http/pay/routes';
import { processorOriginsFrom } from './adapters/http/pay/security-headers';
import { linksRoutes } from './adapters/http/routes';
import { cancelLinkOnSubscriptionCancelled } from './adapters/messaging/cancel-link-on-subscription-cancelled.consumer';
import { postgresLinkManagementRepository } from './adapters/postgres/link-management-repository';
import { postgresMerchantProfiles } from './adapters/postgres/merchant-profiles';
import { postgresPaymentLinkRepository } from './adapters/postgres/payment-link-repository';
import { inbox, outbox } from './adapters/postgres/schema';

/** 128 random bits, URL-safe: a slug cannot be guessed from another. */
const newSlug = () => randomBytes(16).toString('base64url');
/** 256 random bits: a login code opens a user's session, so it must not be guessable either. */
const newLoginCode = () => randomBytes(32).toString('base64url');

export const linksService: ServiceDefinition = {
  name: 'links',
  defaultPort: 3001,
  database: { schema: 'links', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
  async create({ database, bus, logger, clock, internalSecret, env }) {
    const links = postgresPaymentLinkRepository(database.db);
    const merchants = postgresMerchantProfiles(database.db);
    const publicBaseUrl = env.PUBLIC_BASE_URL ?? 'http://localhost:3000';
    const { app, markNotReady } = createApp({
      service: 'links',
      logger,
      maxBodyBytes: maxBodyBytesFrom(env),
      readiness: readinessChecks({ database, bus }),
    });
    app.route(
      '/api',
      linksRoutes({
        links,
        management: postgresLinkManagementRepository(database.db),
        clock,
        newSlug,
        newLoginCode,
        internalSecret,
        publicBaseUrl,
        merchants,
      }),
    );
    app.route(
      '/pay',
      payRoutes({
        links,
        merchants,
        clock,
        csrf: { secret: internalSecret, secureCookies: publicBaseUrl.startsWith('https:') },
        processorOrigins: processorOriginsFrom(env),
      }),
    );
    app.route('/internal', bankTransferRoutes({ links, clock, internalSecret }));
    const relay = createOutboxRelay({ database, outbox, schemaName: 'links', bus, logger });
    return {
      app,
      markNotReady,
      async start() {
        await bus.subscribe(cancelLinkOnSubscriptionCancelled(database.db, inbox, clock));
        await relay.start();
      },
      stop: () => relay.stop(),
    };
  },
};
