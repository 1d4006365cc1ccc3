import { createHash } from 'node:crypto';
import path from 'node:path';
import { apiOperations, GATEWAY_ERRORS, type MerchantContext } from '@payrail/contracts';
import { answerMethodNotAllowed, createApp } from '@payrail/http';
import { postgresUnitOfWork } from '@payrail/messaging';
import { mailSetup } from '@payrail/mail';
import { readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import { hashToken } from './application/api-tokens';
import { loadConfig, retryDelaysMs } from './config';
import { devMailboxRoute } from './adapters/http/dev-mailbox';
import { docsRoutes } from './adapters/http/docs';
import { idempotency } from './adapters/http/idempotency';
import { merchantAccessRoutes } from './adapters/http/access-routes';
import { consoleAuth } from './adapters/http/console/auth';
import { consoleAssets } from './adapters/http/console/pages/assets';
import { consolePages } from './adapters/http/console/pages/routes';
import { auditMerchantWrites } from './adapters/http/audit-writes';
import { authorize, operationResolver, operationsWithoutPermission } from './adapters/http/authorization';
import type { AppFetch } from './adapters/http/in-process-caller';
import { merchantAuth } from './adapters/http/merchant-auth';
import { postgresAuditLogStore } from './adapters/postgres/audit-log-store';
import { postgresConsoleSessionStore } from './adapters/postgres/console-session-store';
import { postgresConsoleUserStore } from './adapters/postgres/console-user-store';
import { recordTokenUse } from './application/access/api-tokens';
import { purgeAuditLog } from './application/access/audit-log';
import { purgeEndedSessions } from './application/access/sign-in';
import type { AccessDeps } from './application/access/deps';
import { clientAddressOf, forwardPublicPage } from './adapters/http/forward';
import { adminRoutes, merchantApiRoutes, merchantProfileRoutes } from './adapters/http/routes';
import { merchantWebhookRoutes } from './adapters/http/webhook-routes';
import { recordWebhookEventsOnEvents } from './adapters/messaging/record-webhook-events-on-events.consumer';
import { inbox } from './adapters/postgres/schema';
import { secretSealer } from './adapters/postgres/secret-sealer';
import { postgresCreatedLinkRecorder } from './adapters/postgres/created-link-recorder';
import { webhookStores } from './adapters/postgres/stores';
import { postgresWebhookDeliveryStore } from './adapters/postgres/webhook-delivery-store';
import { postgresWebhookEndpointStore } from './adapters/postgres/webhook-endpoint-store';
import { postgresWebhookEventLog } from './adapters/postgres/webhook-event-log';
import { httpWebhookSender } from './adapters/webhooks/http-sender';
import type { WebhookDeps } from './application/webhooks/deps';
import { createDeliveryWorker } from './application/webhooks/deliver-webhooks';
import { purgeExpiredEvents } from './application/webhooks/delivery-log';
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

/** Expired idempotency records (and events past their 30 days) are purged this often. */
const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60_000;

/** The only public edge: authenticates merchants and operators, and forwards to the owning service. */
export const gatewayService: ServiceDefinition = createGatewayService();

function createGatewayService(): ServiceDefinition {
  return {
    name: 'gateway',
    defaultPort: 3000,
    database: { schema: 'gateway', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
    loadConfig,
    async create({ database, bus, logger, clock, internalSecret, env, upstream, embedded }) {
      const settings = loadConfig(env);
      // Every merchant operation needs a row in the permission table: none may be left unguarded.
      const unguarded = operationsWithoutPermission(apiOperations);
      if (unguarded.length > 0)
        throw new Error(
          `No permission for ${unguarded.join(', ')}: add each to OPERATION_PERMISSIONS (libs/contracts/src/api/access.ts)`,
        );
      // Console invitations and password resets (the same variables and mailbox rules as links' codes).
      const mail = mailSetup(settings, { embedded: embedded === true, clock });
      logger.info({ mail: mail.describe }, 'gateway: console invitations and resets are mailed through this');
      const merchants = cachedMerchantStore(postgresMerchantStore(database.db), database, logger, {
        ttlMs: settings.TOKEN_CACHE_TTL_MS,
      });
      const idempotencyStore = postgresIdempotencyStore(database.db, { secret: internalSecret });
      const demoToken = settings.DEMO_API_TOKEN;
      if (demoToken) {
        if (!(await merchants.ensureMerchantWithOnlyToken(DEMO_MERCHANT, hashToken(demoToken), clock.now())))
          throw new Error('DEMO_API_TOKEN is already the token of another merchant: choose another UUID');
      }
      const sealer = secretSealer(settings.WEBHOOK_ENCRYPTION_KEY ?? internalSecret);
      const deliveries = postgresWebhookDeliveryStore(database.db, sealer);
      const worker = createDeliveryWorker(
        {
          deliveries,
          send: httpWebhookSender({
            timeoutMs: settings.WEBHOOK_TIMEOUT_MS,
            allowPrivateNetworks: settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
          }),
          clock,
          logger,
        },
        {
          retryDelaysMs: retryDelaysMs(settings),
          concurrency: settings.WEBHOOK_CONCURRENCY,
          perEndpointConcurrency: settings.WEBHOOK_ENDPOINT_CONCURRENCY,
          pollIntervalMs: settings.WEBHOOK_POLL_INTERVAL_MS,
          leaseMs: settings.WEBHOOK_TIMEOUT_MS + 30_000,
        },
      );
      const webhooks: WebhookDeps = {
        endpoints: postgresWebhookEndpointStore(database.db, sealer),
        deliveries,
        eventLog: postgresWebhookEventLog(database.db),
        clock,
        allowPrivateNetworks: settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        deliveriesQueued: () => worker.wake(),
      };
      const access: AccessDeps = {
        users: postgresConsoleUserStore(database.db),
        sessions: postgresConsoleSessionStore(database.db),
        merchants,
        audit: postgresAuditLogStore(database.db),
        mailer: mail.mailer,
        clock,
        sealer,
        publicBaseUrl: settings.PUBLIC_BASE_URL.replace(/\/$/, ''),
      };
      const resolve = operationResolver(apiOperations);
      const { app, markNotReady } = createApp({
        service: 'gateway',
        logger,
        errors: GATEWAY_ERRORS,
        maxBodyBytes: settings.MAX_BODY_BYTES,
        readiness: readinessChecks({ database, bus }),
      });
      const audit = { audit: access.audit, clock, logger, resolve, fetch: (): AppFetch => app.fetch };
      app.route('/', docsRoutes());
      app.route('/', devMailboxRoute(upstream('links'), mail.mailbox));
      const forward = { internalSecret, timeoutMs: settings.UPSTREAM_TIMEOUT_MS };
      app.route(
        '/admin',
        adminRoutes({
          merchants,
          clock,
          adminToken: settings.ADMIN_TOKEN,
          upstream,
          forward,
          webhooks,
          access,
          audit,
        }),
      );
      // Who (a token, or a console user in process), the audit of writes around what follows, whether they
      // may (403), then Idempotency-Key: a replay is answered before anything runs again.
      app.use(
        '/api/*',
        merchantAuth(merchants, (tokenId) => recordTokenUse({ merchants, clock }, tokenId), logger),
      );
      app.use('/api/*', auditMerchantWrites(audit, apiOperations));
      app.use('/api/*', authorize(resolve));
      app.use('/api/*', idempotency({ idempotency: idempotencyStore, clock }));
      // The hosted pay page: public (a customer's browser, no token), served by links.
      const payPages = upstream('links');
      app.all('/pay/*', (c) =>
        forwardPublicPage(c, payPages, clientAddressOf(c), { timeoutMs: settings.UPSTREAM_TIMEOUT_MS }),
      );
      merchantWebhookRoutes(app, webhooks);
      merchantAccessRoutes(app, access);
      merchantProfileRoutes(app);

      // The console (issue 28): its sign-in pages, then every other page behind `signedIn`, which sets who
      // is signed in and the public API as that person (console/console-context.ts).
      const consoleSignIn = consoleAuth({
        deps: access,
        fetch: () => app.fetch,
        csrfKey: createHash('sha256').update(`gateway:console-csrf:v1:${internalSecret}`).digest('hex'),
      });
      // The console's files (public), its sign-in pages, then every other page behind `signedIn`.
      app.route('/', consoleAssets());
      app.route('/console', consoleSignIn.routes);
      // (Hono's `/console/*` is `/console` itself too.)
      app.use('/console/*', consoleSignIn.signedIn);
      app.route('/console', consolePages());
      merchantApiRoutes(app, { upstream, forward });
      answerMethodNotAllowed(app);

      const unitOfWork = postgresUnitOfWork({ db: database.db, inbox, stores: webhookStores });
      const createdLinks = postgresCreatedLinkRecorder(database.db, inbox);

      let purgeTimer: NodeJS.Timeout | undefined;
      const purge = async () => {
        try {
          const purged = await idempotencyStore.deleteExpired(clock.now());
          if (purged > 0) logger.info({ purged }, 'expired idempotency records purged');
          const events = await purgeExpiredEvents(webhooks);
          if (events > 0) logger.info({ events }, 'webhook events past their 30 days purged');
          const sessions = await purgeEndedSessions(access);
          if (sessions > 0) logger.info({ sessions }, 'ended console sessions deleted');
          const audited = await purgeAuditLog(access);
          if (audited > 0) logger.info({ audited }, 'audit log entries past their year purged');
        } catch (error) {
          logger.warn({ err: error }, 'idempotency purge failed; will retry');
        }
      };
      return {
        app,
        markNotReady,
        async start() {
          // The merchant cache (PostgreSQL) and the consumer (RabbitMQ) at the same time.
          await Promise.all([
            merchants.start(),
            bus.subscribe(recordWebhookEventsOnEvents(unitOfWork, createdLinks, () => worker.wake())),
          ]);
          if (settings.WEBHOOK_DELIVERY_WORKER) worker.start();
          purgeTimer = setInterval(purge, IDEMPOTENCY_PURGE_INTERVAL_MS);
          purgeTimer.unref();
        },
        async stop() {
          if (purgeTimer) clearInterval(purgeTimer);
          await merchants.stop();
          await worker.stop();
        },
      };
    },
  };
}

export { openApiDocument } from './adapters/http/docs';
export { WEBHOOK_EVENTS_CONSUMER } from './adapters/messaging/record-webhook-events-on-events.consumer';
export { WEBHOOK_SOURCE_EVENTS } from './application/webhooks/record-webhook-events';
export type {
  ConsoleApi,
  ConsoleApiRequest,
  ConsoleUser,
  ConsoleVariables,
} from './adapters/http/console/console-context';
export { CONSOLE_CSP } from './adapters/http/console/pages/routes';
