import { env } from '@payrail/config';
import { maxBodyBytesSetting } from '@payrail/http';
import { z } from 'zod';

/**
 * `OUTBOX_KEEP_PUBLISHED`, for a service's outbox relay's `keepPublished`: true keeps published rows,
 * marked, as a log of what the service emitted (the test suites read it); unset or false deletes them once
 * published. A value other than true, false, 1 or 0 is a `ConfigError` naming it.
 */
export const keepPublishedSetting = env.boolean(false);

/**
 * The variables every service's own `src/config.ts` parses besides its own (issue 26: one configuration
 * shape): `configSchema = serviceEnvSchema.extend({ ... })`. The host's variables (port, database, broker,
 * secret, logs) are `standaloneEnvSchema`'s, parsed by the process that runs the service.
 */
export const serviceEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  MAX_BODY_BYTES: maxBodyBytesSetting,
  OUTBOX_KEEP_PUBLISHED: keepPublishedSetting,
});
