import { ConfigError } from '@payrail/config';
import { describe, expect, it } from 'vitest';
import { keepPublishedFrom } from '../src/outbox-settings';

describe('keepPublishedFrom (OUTBOX_KEEP_PUBLISHED)', () => {
  it('deletes unless set to true or 1, as every boolean variable reads', () => {
    expect(keepPublishedFrom({})).toBe(false);
    expect(keepPublishedFrom({ OUTBOX_KEEP_PUBLISHED: '' })).toBe(false);
    expect(keepPublishedFrom({ OUTBOX_KEEP_PUBLISHED: 'false' })).toBe(false);
    expect(keepPublishedFrom({ OUTBOX_KEEP_PUBLISHED: '0' })).toBe(false);
    expect(keepPublishedFrom({ OUTBOX_KEEP_PUBLISHED: 'true' })).toBe(true);
    expect(keepPublishedFrom({ OUTBOX_KEEP_PUBLISHED: '1' })).toBe(true);
  });

  it('refuses anything else with a ConfigError naming the variable', () => {
    expect(() => keepPublishedFrom({ OUTBOX_KEEP_PUBLISHED: 'yes' })).toThrow(ConfigError);
    expect(() => keepPublishedFrom({ OUTBOX_KEEP_PUBLISHED: 'yes' })).toThrow(/OUTBOX_KEEP_PUBLISHED/);
  });
});
