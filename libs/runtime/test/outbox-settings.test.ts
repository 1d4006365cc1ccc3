import { ConfigError, parseConfig } from '@payrail/config';
import { describe, expect, it } from 'vitest';
import { serviceEnvSchema } from '../src/outbox-settings';

/** What a service's `src/config.ts` reads of `OUTBOX_KEEP_PUBLISHED` (through `serviceEnvSchema`). */
const keepPublished = (environment: Record<string, string>) =>
  parseConfig(serviceEnvSchema, environment).OUTBOX_KEEP_PUBLISHED;

describe('OUTBOX_KEEP_PUBLISHED, as every service parses it', () => {
  it('deletes unless set to true or 1, as every boolean variable reads', () => {
    expect(keepPublished({})).toBe(false);
    expect(keepPublished({ OUTBOX_KEEP_PUBLISHED: '' })).toBe(false);
    expect(keepPublished({ OUTBOX_KEEP_PUBLISHED: 'false' })).toBe(false);
    expect(keepPublished({ OUTBOX_KEEP_PUBLISHED: '0' })).toBe(false);
    expect(keepPublished({ OUTBOX_KEEP_PUBLISHED: 'true' })).toBe(true);
    expect(keepPublished({ OUTBOX_KEEP_PUBLISHED: '1' })).toBe(true);
  });

  it('refuses anything else with a ConfigError naming the variable', () => {
    expect(() => keepPublished({ OUTBOX_KEEP_PUBLISHED: 'yes' })).toThrow(ConfigError);
    expect(() => keepPublished({ OUTBOX_KEEP_PUBLISHED: 'yes' })).toThrow(/OUTBOX_KEEP_PUBLISHED/);
  });
});
