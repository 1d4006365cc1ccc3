import { env, parseConfig } from '@payrail/config';
import { mailEnvFields, mailEnvRules } from '@payrail/mail';
import { serviceEnvSchema } from '@payrail/runtime';
import { z } from 'zod';

/**
 * links' own environment, parsed once at start (issue 26: the only place of the service that reads
 * variables; the host's, such as `PORT`, `DATABASE_URL` and the upstream services' URLs, are the host's).
 * The README's configuration table is checked against this schema by a test.
 */
export const configSchema = serviceEnvSchema
  .extend({
    /** The pay page's public origin: the links' `publicPayUrl`, the processors' return URLs; https makes cookies Secure. */
    PUBLIC_BASE_URL: z.url().default('http://localhost:3000'),
    /** How long the pay page waits for processor-gateway (which itself waits up to 25 s for a processor). */
    PROCESSOR_GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
    /** How long the pay page waits for a subscription's schedule (one indexed read at subscriptions). */
    SUBSCRIPTIONS_TIMEOUT_MS: z.coerce.number().int().min(1).default(5_000),
    /** How often links past their `payWaitHours` are written expired (statusId 6, `link.expired`); 0: never. */
    LINK_EXPIRY_SWEEP_MS: z.coerce.number().int().min(0).default(60_000),
    /** How often the customer e-mails' outbox is sent (what is due then leaves); 0: never. */
    CUSTOMER_EMAIL_RELAY_MS: z.coerce.number().int().min(0).default(2_000),
    /**
     * The waits after the 1st, 2nd, ... failed SMTP try of a customer e-mail (milliseconds, comma-separated;
     * the last repeats), for 3 days from the e-mail's creation, then it is `failed`.
     */
    CUSTOMER_EMAIL_RETRY_SCHEDULE: z
      .string()
      .regex(/^\d+(,\d+)*$/, 'must be milliseconds separated by commas')
      .default('60000,300000,1800000,7200000,21600000,43200000')
      .transform((value) => value.split(',').map(Number)),
    /** How often the reminders (a debit ahead, a card expiring) are looked for, besides each as-of billing run; 0: only then. */
    CUSTOMER_EMAIL_SWEEP_MS: z.coerce.number().int().min(0).default(600_000),
    /**
     * Tests and demos only (refused with NODE_ENV=production): an as-of billing run's day becomes the
     * merchant's today for its customers' e-mails (reminders, a signed link's 7 days).
     */
    SIMULATED_TIME: env.boolean(false),
    /** Login codes leave by SMTP, or stay in the development mailbox (`libs/mail`). */
    ...mailEnvFields,
    /**
     * The processors' form origins, the only ones the pay page may frame (CSP `frame-src`, `form-action`):
     * the same settings processor-gateway builds the form URLs from. A value that is no URL is left out.
     */
    PROCESSOR_A_URL: z.string().optional(),
    PROCESSOR_B_URL: z.string().optional(),
    PROCESSOR_SANDBOX_PUBLIC_URL: z.string().optional(),
    PROCESSOR_SANDBOX_URL: z.string().optional(),
  })
  .superRefine((config, ctx) => {
    mailEnvRules(config, ctx);
    if (config.SIMULATED_TIME && config.NODE_ENV === 'production') {
      ctx.addIssue({
        code: 'custom',
        path: ['SIMULATED_TIME'],
        message: "simulated time moves the merchants' calendars and is refused when NODE_ENV=production",
      });
    }
  });

export type LinksConfig = z.infer<typeof configSchema>;

/** The service's settings from an environment; a `ConfigError` names each wrong variable. */
export function loadConfig(environment: Record<string, string | undefined>): LinksConfig {
  return parseConfig(configSchema, environment);
}
