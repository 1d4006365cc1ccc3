import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { LINK_ERRORS } from '@payrail/contracts';
import { createApp } from '@payrail/http';
import { createOutboxRelay, postgresUnitOfWork } from '@payrail/messaging';
import { randomPool, readinessChecks, type ServiceDefinition } from '@payrail/runtime';
import type { MiddlewareHandler } from 'hono';
import { bankTransferRoutes } from './adapters/http/bank-transfer-routes';
import { devMailboxRoutes } from './adapters/http/dev-mailbox-routes';
import { accountPages } from './adapters/http/pay/account-routes';
import { identityPages } from './adapters/http/pay/identity-routes';
import { payRoutes } from './adapters/http/pay/routes';
import type { CustomerVariables } from './adapters/http/pay/session';
import { processorOrigins } from './adapters/http/pay/security-headers';
import { customerSession } from './adapters/http/pay/session';
import { linksRoutes } from './adapters/http/routes';
import { cancelLinkOnSubscriptionCancelled } from './adapters/messaging/cancel-link-on-subscription-cancelled.consumer';
import { recordRefundOnRefundSucceeded } from './adapters/messaging/record-refund-on-refund-succeeded.consumer';
import { settleLinkOnPayment } from './adapters/messaging/settle-link-on-payment.consumer';
import { mailCustomersOnAccountEvents } from './adapters/messaging/mail-customers-on-account-events.consumer';
import { careRoutes } from './adapters/http/pay/care-routes';
import {
  postgresCustomerEmailOutbox,
  postgresCustomerEmailStore,
  rememberCustomerLanguage,
} from './adapters/postgres/customer-email-store';
import { remindCustomers } from './application/customer-emails/mail-customers';
import { relayCustomerEmails } from './application/customer-emails/relay-customer-emails';
import { cardPaymentsClient } from './adapters/processor-gateway/card-payments-client';
import { subscriptionsClient } from './adapters/subscriptions/subscriptions-client';
import { linkExpiredEvent } from './application/events';
import { postgresMerchantProfiles } from './adapters/postgres/merchant-profiles';
import { postgresCustomerRepository } from './adapters/postgres/customer-repository';
import { postgresCustomerSessionRepository } from './adapters/postgres/customer-session-repository';
import { postgresEmailLoginRepository } from './adapters/postgres/email-login-repository';
import { postgresLoginCodeRepository } from './adapters/postgres/login-code-repository';
import { postgresPaymentLinkRepository } from './adapters/postgres/payment-link-repository';
import { postgresCustomerDirectory } from './adapters/postgres/customer-directory';
import { vaultCardsClient } from './adapters/processor-gateway/vault-cards-client';
import { inbox, outbox } from './adapters/postgres/schema';
import { linksStores } from './adapters/postgres/stores';
import { loadConfig } from './config';
import { mailSetup } from '@payrail/mail';

const slugBytes = randomPool();
/** 128 random bits, URL-safe: a slug cannot be guessed from another. */
const newSlug = () => slugBytes(16).toString('base64url');
/** 256 random bits: a login code opens a user's session, so it must not be guessable either. */
const newLoginCode = () => randomBytes(32).toString('base64url');

export interface LinksServiceOptions {
  /** Sets `c.var.customer` on the pay page; default: the customer session (`adapters/http/pay/session.ts`). */
  customerSession?: MiddlewareHandler<{ Variables: CustomerVariables }>;
}

/** Links at most written expired per sweep transaction. */
const EXPIRY_BATCH = 200;

export function createLinksService(options: LinksServiceOptions = {}): ServiceDefinition {
  return {
    name: 'links',
    defaultPort: 3001,
    database: { schema: 'links', migrationsFolder: path.join(__dirname, '..', 'drizzle') },
    loadConfig,
    async create({ database, bus, logger, clock, internalSecret, env, upstream, embedded }) {
      // Refuses the development mailbox under NODE_ENV=production (the start fails, naming DEV_MAILBOX).
      const settings = loadConfig(env);
      const mail = mailSetup(settings, { embedded: embedded === true, clock });
      logger.info({ mail: mail.describe }, 'links: login codes are mailed through this');
      if (mail.describe === 'none')
        logger.warn(
          'links: login codes cannot be sent, so customers cannot sign in on the pay page: set SMTP_URL to mail them, or DEV_MAILBOX=true (not with NODE_ENV=production) to keep them at /dev/mailbox',
        );
      const links = postgresPaymentLinkRepository(database.db);
      const { payments, management } = linksStores(database.db);
      const merchants = postgresMerchantProfiles(database.db);
      const publicBaseUrl = settings.PUBLIC_BASE_URL;
      const emailOutbox = postgresCustomerEmailOutbox(database.db);
      const emailStore = postgresCustomerEmailStore(database.db);
      const simulatedTime = settings.SIMULATED_TIME;
      const { app, markNotReady } = createApp({
        service: 'links',
        logger,
        errors: LINK_ERRORS,
        maxBodyBytes: settings.MAX_BODY_BYTES,
        readiness: readinessChecks({ database, bus }),
      });
      const cards = cardPaymentsClient({
        upstream: upstream('processor-gateway'),
        internalSecret,
        timeoutMs: settings.PROCESSOR_GATEWAY_TIMEOUT_MS,
      });
      app.route(
        '/api',
        linksRoutes({
          links,
          management,
          clock,
          newSlug,
          newLoginCode,
          internalSecret,
          publicBaseUrl,
          merchants,
          customers: postgresCustomerDirectory(database.db),
          cards,
          customerEmails: emailOutbox,
        }),
      );
      const csrf = { secret: internalSecret, secureCookies: publicBaseUrl.startsWith('https:') };
      const subscriptions = subscriptionsClient({
        upstream: upstream('subscriptions'),
        internalSecret,
        timeoutMs: settings.SUBSCRIPTIONS_TIMEOUT_MS,
      });
      const vault = vaultCardsClient({ upstream: upstream('processor-gateway'), internalSecret });
      const customers = postgresCustomerRepository(database.db);
      const sessions = postgresCustomerSessionRepository(database.db);
      app.route(
        '/pay',
        payRoutes({
          links,
          payments,
          merchants,
          cards,
          subscriptions,
          clock,
          publicBaseUrl,
          customerSession:
            options.customerSession ??
            customerSession({
              sessions,
              clock,
              secureCookies: csrf.secureCookies,
              merchantOfSlug: async (slug) => (await links.findBySlug(slug))?.merchantId,
              rememberLanguage: rememberCustomerLanguage(database.db),
            }),
          identityPages: (pay) => {
            identityPages({
              links,
              merchants,
              clock,
              csrf,
              emailLogins: postgresEmailLoginRepository(database.db),
              mailer: mail.mailer,
              sessions,
              customers,
              loginCodes: postgresLoginCodeRepository(database.db),
              vault,
              subscriptions,
              secret: internalSecret,
            })(pay);
            // The customer's own page (issue 29): subscriptions, their card, payments and receipts.
            accountPages({
              links,
              merchants,
              customers,
              subscriptions,
              cards,
              vault,
              clock,
              csrf,
              publicBaseUrl,
              processorOrigins: processorOrigins(settings),
            })(pay);
          },
          careLinks: careRoutes({
            outbox: emailOutbox,
            emails: emailStore,
            merchants,
            clock,
            simulatedTime,
            secret: internalSecret,
            sessions,
            secureCookies: csrf.secureCookies,
          }),
          csrf,
          processorOrigins: processorOrigins(settings),
        }),
      );
      // Before the merchant-context check of the other internal routes: the mailbox has no merchant.
      app.route('/internal', devMailboxRoutes(mail.mailbox));
      app.route('/internal', bankTransferRoutes({ links, clock, internalSecret }));
      const relay = createOutboxRelay({
        database,
        outbox,
        schemaName: 'links',
        bus,
        logger,
        keepPublished: settings.OUTBOX_KEEP_PUBLISHED,
      });
      const unitOfWork = postgresUnitOfWork({ db: database.db, inbox, stores: linksStores });
      let sweepTimer: NodeJS.Timeout | undefined;
      const sweep = async () => {
        try {
          const now = clock.now();
          const expired = await payments.expireDue(now, EXPIRY_BATCH, (link) => linkExpiredEvent(link, now));
          if (expired.length > 0)
            logger.info({ expired: expired.length }, 'links past their validity expired');
        } catch (error) {
          logger.warn({ err: error }, 'link expiry sweep failed; will retry');
        }
      };
      const mailDeps = { emails: emailStore, merchants, clock, simulatedTime };
      const relayDeps = {
        outbox: emailOutbox,
        emails: emailStore,
        merchants,
        mailer: mail.mailer,
        clock,
        simulatedTime,
        secret: internalSecret,
        publicBaseUrl,
        retryScheduleMs: settings.CUSTOMER_EMAIL_RETRY_SCHEDULE,
        leaseMs: 120_000,
        batchSize: 50,
      };
      // One relay pass at a time in this process; replicas share the rows (SKIP LOCKED and a lease).
      let relaying: Promise<void> | undefined;
      const relayEmails = () => {
        relaying ??= relayCustomerEmails(relayDeps)
          .then(() => undefined)
          .catch((error) => logger.warn({ err: error }, 'customer e-mail relay failed; will retry'))
          .finally(() => {
            relaying = undefined;
          });
        return relaying;
      };
      let relayTimer: NodeJS.Timeout | undefined;
      let remindTimer: NodeJS.Timeout | undefined;
      return {
        app,
        markNotReady,
        async start() {
          await Promise.all([
            bus.subscribe(cancelLinkOnSubscriptionCancelled(unitOfWork, clock)),
            bus.subscribe(settleLinkOnPayment(unitOfWork, clock)),
            bus.subscribe(recordRefundOnRefundSucceeded(unitOfWork)),
            bus.subscribe(mailCustomersOnAccountEvents(unitOfWork, { merchants, clock, simulatedTime })),
          ]);
          if (settings.CUSTOMER_EMAIL_RELAY_MS > 0) {
            relayTimer = setInterval(relayEmails, settings.CUSTOMER_EMAIL_RELAY_MS);
            relayTimer.unref();
          }
          if (settings.CUSTOMER_EMAIL_SWEEP_MS > 0) {
            remindTimer = setInterval(() => {
              remindCustomers(mailDeps, null).catch((error) =>
                logger.warn({ err: error }, 'customer reminder sweep failed; will retry'),
              );
            }, settings.CUSTOMER_EMAIL_SWEEP_MS);
            remindTimer.unref();
          }
          await relay.start();
          if (settings.LINK_EXPIRY_SWEEP_MS > 0) {
            sweepTimer = setInterval(sweep, settings.LINK_EXPIRY_SWEEP_MS);
            sweepTimer.unref();
          }
        },
        async stop() {
          if (sweepTimer) clearInterval(sweepTimer);
          if (relayTimer) clearInterval(relayTimer);
          if (remindTimer) clearInterval(remindTimer);
          await relaying;
          await relay.stop();
        },
      };
    },
  };
}

export const linksService: ServiceDefinition = createLinksService();
