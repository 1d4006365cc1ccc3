import { describe, expect, it } from 'vitest';
import { requestFingerprint } from '../src/application/idempotency';
import { InvalidMerchantSettings } from '../src/domain/errors';
import { ABANDONED_AFTER_MS, decide, type IdempotencyRecord } from '../src/domain/idempotency';
import { type MerchantSettings, newMerchantSettings, updatedSettings } from '../src/domain/merchant';
import { hashToken, looksLikeToken } from '../src/application/api-tokens';

const NOW = new Date('2026-11-22T12:00:00Z');
const record = (overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  merchantId: '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10',
  key: 'k',
  fingerprint: 'f',
  state: 'completed',
  response: { status: 200, contentType: 'application/json', body: '{}' },
  lockedAt: NOW,
  expiresAt: new Date(NOW.getTime() + 24 * 3_600_000),
  ...overrides,
});

describe('idempotency decisions', () => {
  it('replays a completed request with the same fingerprint', () => {
    expect(decide(record(), 'f', NOW)).toBe('replay');
  });
  it('never re-runs a completed request whose response cannot be read', () => {
    expect(decide(record({ response: null }), 'f', NOW)).toBe('unavailable');
  });
  it('refuses another request with the key, finished or not', () => {
    expect(decide(record(), 'other', NOW)).toBe('key-reused');
    expect(decide(record({ state: 'in_progress', response: null }), 'other', NOW)).toBe('key-reused');
  });
  it('answers "in progress" while the first still runs, and takes over an abandoned one', () => {
    const running = record({ state: 'in_progress', response: null });
    expect(decide(running, 'f', new Date(NOW.getTime() + ABANDONED_AFTER_MS - 1))).toBe('in-progress');
    expect(decide(running, 'f', new Date(NOW.getTime() + ABANDONED_AFTER_MS))).toBe('reclaim');
  });
  it('treats an expired record as a fresh key, whatever the request', () => {
    const later = new Date(NOW.getTime() + 24 * 3_600_000);
    expect(decide(record(), 'other', later)).toBe('reclaim');
  });
});

describe('request fingerprints', () => {
  const body = (text: string) => new TextEncoder().encode(text);
  it('compares JSON by content: key order and spacing do not matter', () => {
    expect(requestFingerprint('POST', '/api/x', body('{"a":1,"b":[1,{"c":2,"d":3}]}'))).toBe(
      requestFingerprint('post', '/api/x', body('{ "b": [1, {"d": 3, "c": 2}], "a": 1 }')),
    );
  });
  it('differs for another value, another path or another method', () => {
    const base = requestFingerprint('POST', '/api/x', body('{"a":1}'));
    expect(requestFingerprint('POST', '/api/x', body('{"a":2}'))).not.toBe(base);
    expect(requestFingerprint('POST', '/api/y', body('{"a":1}'))).not.toBe(base);
    expect(requestFingerprint('PUT', '/api/x', body('{"a":1}'))).not.toBe(base);
    expect(requestFingerprint('POST', '/api/x', body('[1,2]'))).not.toBe(
      requestFingerprint('POST', '/api/x', body('[2,1]')),
    );
  });
  it('falls back to the bytes for a body that is not JSON', () => {
    expect(requestFingerprint('POST', '/api/x', body('{"a":'))).not.toBe(
      requestFingerprint('POST', '/api/x', body('{"a": ')),
    );
  });
});

describe('merchant settings', () => {
  const base = { name: 'M', saasContract: false, noLoginEnabled: false, timezone: 'America/Asuncion' };
  const invalidField = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (error instanceof InvalidMerchantSettings) return error.field;
      throw error;
    }
    return undefined;
  };

  it('defaults: PYG for national, USD for international, both processors, no callback', () => {
    expect(newMerchantSettings({ ...base, instance: 'NATIONAL' })).toMatchObject({
      currency: 'PYG',
      processors: ['PARAGUAY.PROCESSOR_A', 'PARAGUAY.PROCESSOR_B'],
      callbackUrl: null,
    });
    expect(newMerchantSettings({ ...base, instance: 'INTERNATIONAL' }).currency).toBe('USD');
    expect(newMerchantSettings({ ...base, instance: 'INTERNATIONAL', currency: 'EUR' }).currency).toBe('EUR');
  });

  it('refuses a currency the instance does not offer, and no processors', () => {
    expect(invalidField(() => newMerchantSettings({ ...base, instance: 'NATIONAL', currency: 'USD' }))).toBe(
      'currency',
    );
    expect(
      invalidField(() => newMerchantSettings({ ...base, instance: 'INTERNATIONAL', currency: 'PYG' })),
    ).toBe('currency');
    expect(invalidField(() => newMerchantSettings({ ...base, instance: 'NATIONAL', processors: [] }))).toBe(
      'processors',
    );
  });

  it('updates only what is given; a move of instance takes its default currency unless one is named', () => {
    const current: MerchantSettings = newMerchantSettings({ ...base, instance: 'NATIONAL' });
    expect(updatedSettings(current, { saasContract: true })).toEqual({ ...current, saasContract: true });
    expect(updatedSettings(current, { instance: 'INTERNATIONAL' }).currency).toBe('USD');
    expect(updatedSettings(current, { instance: 'INTERNATIONAL', currency: 'EUR' }).currency).toBe('EUR');
    expect(invalidField(() => updatedSettings(current, { currency: 'EUR' }))).toBe('currency');
    expect(updatedSettings(current, { callbackUrl: null }).callbackUrl).toBeNull();
  });
});

describe('API tokens', () => {
  it('are UUIDs, hashed the same whatever their case or surrounding spaces', () => {
    const token = '3F2A9C4E-7B1D-4E8A-9C0F-1D2E3F4A5B6C';
    expect(looksLikeToken(token)).toBe(true);
    expect(looksLikeToken('3f2a9c4e7b1d4e8a9c0f1d2e3f4a5b6c')).toBe(false);
    expect(hashToken(` ${token} `)).toBe(hashToken(token.toLowerCase()));
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
  });
});
