import { parseConfig } from '@payrail/config';
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
  .superRefine(mailEnvRules);

export type LinksConfig = z.infer<typeof configSchema>;

/** The service's settings from an environment; a `ConfigError` names each wrong variable. */
export function loadConfig(environment: Record<string, string | undefined>): LinksConfig {
  return parseConfig(configSchema, environment);
}
