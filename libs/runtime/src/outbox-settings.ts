import { env, parseConfig } from '@payrail/config';
import { z } from 'zod';

const outboxSettings = z.object({ OUTBOX_KEEP_PUBLISHED: env.boolean(false) });

/**
 * `OUTBOX_KEEP_PUBLISHED` of a service's environment, for its outbox relay's `keepPublished`: true keeps
 * published rows, marked, as a log of what the service emitted (the test suites read it); unset or false
 * deletes them once published. A value other than true, false, 1 or 0 is a `ConfigError` naming it.
 */
export function keepPublishedFrom(environment: Record<string, string | undefined>): boolean {
  return parseConfig(outboxSettings, environment).OUTBOX_KEEP_PUBLISHED;
}
