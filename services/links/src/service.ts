import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createApp, maxBodyBytesFrom } from '@payrail/http';
import { createOutboxRelay } from '@payrail/messaging';
import { readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import { bankTransferRoutes } from './adapters/http/bank-transfer-routes';
import { linksRoutes } from './adapters/http/routes';
import { cancelLinkOnSubscriptionCancelled } from './adapters/messaging/cancel-link-on-subscription-cancelled.consumer';
import { postgresLinkManagementRepository } from './adapters/postgres/link-management-repository';
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
        publicBaseUrl: env.PUBLIC_BASE_URL ?? 'http://localhost:3000',
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
