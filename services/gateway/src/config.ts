import { env, parseConfig } from '@payrail/config';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from '@payrail/http';
import { mailEnvFields, mailEnvRules } from '@payrail/mail';
import { serviceEnvSchema } from '@payrail/runtime';
import { z } from 'zod';
import { looksLikeToken } from './application/api-tokens';
import {
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_RETRY_WINDOW,
  parseRetrySchedule,
} from './domain/webhooks/retry-schedule';

/**
 * The gateway's own environment, parsed once at start (issue 26: the only place of the service that reads
 * variables; the host's, such as `PORT` and `DATABASE_URL`, are `standaloneEnvSchema`'s). The README's
 * configuration table is checked against this schema by `test/readme.test.ts`.
 */
export const configSchema = serviceEnvSchema
  .extend({
    /** The operator's bearer token for `/admin/*`; without it every `/admin` call is 401. */
    ADMIN_TOKEN: z.string().optional(),
    /** A demo merchant is created at start with this token (a UUID) as its only live one. */
    DEMO_API_TOKEN: z.string().refine(looksLikeToken, 'must be a UUID').optional(),
    /** How long a forwarded call may take, answer included, before the merchant gets a 504. */
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_UPSTREAM_TIMEOUT_MS),
    /** How long a live Api-Token's merchant is cached (revocations reach every replica at once by NOTIFY); 0: off. */
    TOKEN_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
    /** Delays between webhook attempts; a trailing `...` repeats the last until `WEBHOOK_RETRY_WINDOW`. */
    WEBHOOK_RETRY_SCHEDULE: z.string().default(DEFAULT_RETRY_SCHEDULE),
    WEBHOOK_RETRY_WINDOW: z.string().default(DEFAULT_RETRY_WINDOW),
    /** A receiver that has not answered by then has failed this attempt. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
    /** Development and tests only: lets endpoints point at loopback, private and link-local addresses. */
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: env.boolean(false),
    /** Seals webhook secrets and receiver credentials at rest; default: derived from INTERNAL_SECRET. */
    WEBHOOK_ENCRYPTION_KEY: env.secret().optional(),
    /** Whether this process sends webhooks (replicas may leave it to others; every replica may do it). */
    WEBHOOK_DELIVERY_WORKER: env.boolean(true),
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).default(32),
    WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).default(4),
    WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(1000),
    /**
     * Where people reach the console (`/console`), the origin its invitation and reset links are written
     * with; https makes its session cookie `Secure`. The same variable as links' pay page.
     */
    PUBLIC_BASE_URL: z.url().default('http://localhost:3000'),
    /** The console's invitations and password resets leave by SMTP, or stay in the development mailbox. */
    ...mailEnvFields,
  })
  .superRefine((config, ctx) => {
    mailEnvRules(config, ctx);
    // The schedule on its own first, then with its window (read only by a schedule ending in `...`).
    const checks = [
      ['WEBHOOK_RETRY_SCHEDULE', DEFAULT_RETRY_WINDOW],
      ['WEBHOOK_RETRY_WINDOW', config.WEBHOOK_RETRY_WINDOW],
    ] as const;
    for (const [variable, window] of checks) {
      try {
        parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE, window);
      } catch (error) {
        ctx.addIssue({ code: 'custom', path: [variable], message: (error as Error).message });
        return;
      }
    }
  });

export type GatewayConfig = z.infer<typeof configSchema>;

/** The service's settings from an environment; a `ConfigError` names each wrong variable. */
export function loadConfig(environment: Record<string, string | undefined>): GatewayConfig {
  return parseConfig(configSchema, environment);
}

/** The delays between a webhook's attempts, from the (checked) schedule and window. */
export function retryDelaysMs(config: GatewayConfig): number[] {
  return parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE, config.WEBHOOK_RETRY_WINDOW);
}

/** What the operator CLI (`npm run admin`) reads: the gateway's database. */
export const cliConfigSchema = z.object({ DATABASE_URL: z.string().optional() });

/** The CLI's settings, from the environment it is given (by default the process's). */
export function loadCliConfig(
  environment: Record<string, string | undefined> = process.env,
): z.infer<typeof cliConfigSchema> {
  return parseConfig(cliConfigSchema, environment);
}
