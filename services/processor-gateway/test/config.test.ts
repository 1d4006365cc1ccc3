import { ConfigError } from '@payrail/config';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';

describe("processor-gateway's configuration (src/config.ts)", () => {
  it('gives every setting its default from an empty environment', () => {
    const config = loadConfig({});
    expect(config.processors['PARAGUAY.PROCESSOR_A']).toMatchObject({
      baseUrl: 'http://127.0.0.1:3005',
      publicKey: 'sandbox-a-public',
      timeoutMs: 20_000,
    });
    expect(config.timings).toMatchObject({ sendWindowMs: 10_000, callDeadlineMs: 35_000 });
    expect(config).toMatchObject({
      janitorIntervalMs: 5_000,
      bankTransferSweepIntervalMs: 60_000,
      maxBodyBytes: 1_048_576,
      keepPublished: false,
    });
  });

  it('reads the bank transfer sweep and the shared settings from the environment', () => {
    const config = loadConfig({
      BANK_TRANSFER_SWEEP_INTERVAL_MS: '0',
      MAX_BODY_BYTES: '2048',
      OUTBOX_KEEP_PUBLISHED: 'true',
      PROCESSOR_SANDBOX_URL: 'http://sandbox.test:4005',
      PROCESSOR_B_URL: 'http://b.test',
    });
    expect(config).toMatchObject({ bankTransferSweepIntervalMs: 0, maxBodyBytes: 2048, keepPublished: true });
    expect(config.processors['PARAGUAY.PROCESSOR_A'].baseUrl).toBe('http://sandbox.test:4005');
    expect(config.processors['PARAGUAY.PROCESSOR_B'].baseUrl).toBe('http://b.test');
  });

  it.each([
    ['BANK_TRANSFER_SWEEP_INTERVAL_MS', 'every minute'],
    ['PROCESSOR_TIMEOUT_MS', '-1'],
    ['PROCESSOR_A_URL', 'not a url'],
    ['OUTBOX_KEEP_PUBLISHED', 'yes'],
  ])('refuses %s=%j, naming it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(
      expect.objectContaining({ constructor: ConfigError, variables: [variable] }),
    );
  });
});
