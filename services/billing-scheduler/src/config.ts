import { env, parseConfig } from '@payrail/config';
import { serviceEnvSchema } from '@payrail/runtime';
import { z } from 'zod';

/**
 * billing-scheduler's own environment, parsed once at start (issue 26: the only place of the service that
 * reads variables; the host's, such as `PORT` and `DATABASE_URL`, are `standaloneEnvSchema`'s). The
 * README's configuration table is checked against this schema by a test.
 */
export const configSchema = serviceEnvSchema
  .extend({
    /** How often the scheduled run claims what is due today; 0 turns it off (tests). */
    BILLING_RUN_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
    /** Installments claimed per transaction. */
    BILLING_CLAIM_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
    /**
     * A claimed installment with no outcome this long after its claim is claimed again by a later run, for
     * the same attempt (default four hours: far beyond a slow processor's answer and the janitors' settling).
     */
    BILLING_RECLAIM_AFTER_MS: z.coerce.number().int().min(60_000).default(14_400_000),
    /** A run as of a future day charges what is due by then: tests and demos. Never in production. */
    SIMULATED_TIME: env.boolean(false),
  })
  .superRefine((config, ctx) => {
    if (config.SIMULATED_TIME && config.NODE_ENV === 'production') {
      ctx.addIssue({
        code: 'custom',
        path: ['SIMULATED_TIME'],
        message:
          'must not be true with NODE_ENV=production: simulated time charges future installments today',
      });
    }
  });

export type BillingSchedulerConfig = z.infer<typeof configSchema>;

/** The service's settings from an environment; a `ConfigError` names each wrong variable. */
export function loadConfig(environment: Record<string, string | undefined>): BillingSchedulerConfig {
  return parseConfig(configSchema, environment);
}
