import { parseConfig } from '@payrail/config';
import { serviceEnvSchema } from '@payrail/runtime';
import type { z } from 'zod';

/**
 * subscriptions' own environment, parsed once at start (issue 26: the only place of the service that reads
 * variables; the host's, such as `PORT` and `DATABASE_URL`, are `standaloneEnvSchema`'s). It has no
 * variable of its own: what every service reads (`NODE_ENV`, `MAX_BODY_BYTES`, `OUTBOX_KEEP_PUBLISHED`).
 * The README's configuration table is checked against this schema by a test.
 */
export const configSchema = serviceEnvSchema;

export type SubscriptionsConfig = z.infer<typeof configSchema>;

/** The service's settings from an environment; a `ConfigError` names each wrong variable. */
export function loadConfig(environment: Record<string, string | undefined>): SubscriptionsConfig {
  return parseConfig(configSchema, environment);
}
