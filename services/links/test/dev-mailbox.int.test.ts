import { type ServiceUnderTest, startService } from '@payrail/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { linksService } from '../src/service';

const started: ServiceUnderTest[] = [];
afterAll(async () => {
  for (const svc of started) await svc.stop();
});

async function links(env: Record<string, string>) {
  const svc = await startService(linksService, { env });
  started.push(svc);
  return svc;
}

// The gateway's `GET /dev/mailbox` shows this route's answer (test-e2e/login-by-code covers the two together).
describe('GET /internal/dev/mailbox', () => {
  it('with DEV_MAILBOX=true: a JSON array, no merchant context needed', async () => {
    const svc = await links({ DEV_MAILBOX: 'true' });
    const response = await svc.request('GET', '/internal/dev/mailbox');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual([]);
  });

  it('off (a process of its own without DEV_MAILBOX): 404 problem', async () => {
    const svc = await links({});
    const response = await svc.request('GET', '/internal/dev/mailbox');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });

  it('NODE_ENV=production with DEV_MAILBOX=true: links refuses to start, naming DEV_MAILBOX', async () => {
    await expect(links({ NODE_ENV: 'production', DEV_MAILBOX: 'true' })).rejects.toThrow(/DEV_MAILBOX/);
  });
});
