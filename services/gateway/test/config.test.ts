import { ConfigError } from '@payrail/config';
import { describe, expect, it } from 'vitest';
import { loadCliConfig, loadConfig, retryDelaysMs } from '../src/config';

const refusal = (environment: Record<string, string>) => {
  try {
    loadConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return { variables: error.variables, message: error.message };
    throw error;
  }
  return undefined;
};

describe("the gateway's config.ts", () => {
  it('reads every setting with its default, and none of the operator tokens unless given', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      MAX_BODY_BYTES: 1_048_576,
      UPSTREAM_TIMEOUT_MS: 10_000,
      TOKEN_CACHE_TTL_MS: 10_000,
      WEBHOOK_DELIVERY_WORKER: true,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: false,
    });
    expect(config.ADMIN_TOKEN).toBeUndefined();
    expect(config.DEMO_API_TOKEN).toBeUndefined();
    // An empty variable is unset, as `ADMIN_TOKEN=` in a compose file means.
    expect(loadConfig({ ADMIN_TOKEN: '' }).ADMIN_TOKEN).toBeUndefined();
    expect(retryDelaysMs(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1s,2s' }))).toEqual([1000, 2000]);
  });

  it('names the wrong variable: a demo token that is no UUID, a schedule, a window', () => {
    expect(refusal({ DEMO_API_TOKEN: 'demo' })).toMatchObject({ variables: ['DEMO_API_TOKEN'] });
    expect(refusal({ WEBHOOK_RETRY_SCHEDULE: '5s,soon' })).toMatchObject({
      variables: ['WEBHOOK_RETRY_SCHEDULE'],
    });
    expect(refusal({ WEBHOOK_RETRY_SCHEDULE: '5s,...', WEBHOOK_RETRY_WINDOW: 'a week' })).toMatchObject({
      variables: ['WEBHOOK_RETRY_WINDOW'],
    });
    // The window is read only by a schedule that repeats its last delay.
    expect(refusal({ WEBHOOK_RETRY_SCHEDULE: '5s', WEBHOOK_RETRY_WINDOW: 'a week' })).toBeUndefined();
    expect(refusal({ WEBHOOK_CONCURRENCY: '0' })).toMatchObject({ variables: ['WEBHOOK_CONCURRENCY'] });
  });

  it('gives the operator CLI the database it is told of, and nothing when it is not', () => {
    expect(loadCliConfig({ DATABASE_URL: 'postgres://x/y' }).DATABASE_URL).toBe('postgres://x/y');
    expect(loadCliConfig({}).DATABASE_URL).toBeUndefined();
  });
});
