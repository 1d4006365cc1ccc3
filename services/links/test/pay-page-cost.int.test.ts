import { signMerchantContext, listen, type RunningServer } from '@payrail/http';
import { createInProcessBus, type MessageBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import type { ServiceInstance } from '@payrail/runtime';
import {
  aMerchant,
  aOneOffLink,
  type MigratedTestDatabase,
  migratedTestDatabase,
  TEST_INTERNAL_SECRET,
  testClock,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantProfiles, paymentLinks } from '../src/adapters/postgres/schema';
import { LinkStatus } from '../src/domain/payment-link';
import { linksService } from '../src/service';

// What opening a pay page costs links (bench:pay-page, docs/performance.md): the statements it sends and
// how its answer goes out on the wire. The page's content is pay-page.int.test.ts's.

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
const sent: string[] = [];
let migrated: MigratedTestDatabase;
let bus: MessageBus;
let instance: ServiceInstance;
let server: RunningServer;
let base: string;

beforeAll(async () => {
  migrated = await migratedTestDatabase('links_pay_cost', linksService, {
    max: 1,
    onQuery: (text) => sent.push(text),
  });
  bus = createInProcessBus();
  await bus.start();
  instance = await linksService.create({
    database: migrated.database,
    bus,
    logger: createLogger('links', 'silent'),
    clock,
    internalSecret: TEST_INTERNAL_SECRET,
    env: { PUBLIC_BASE_URL: 'http://pay.test', PROCESSOR_SANDBOX_URL: 'http://sandbox.test:3005' },
    upstream: () => async () => new Response('no upstream in this test', { status: 503 }),
  });
  await instance.start();
  server = await listen(instance.app, 0, '127.0.0.1');
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close();
  await bus?.stopConsuming();
  await instance?.stop();
  await bus?.close();
  await migrated?.drop();
});

const gym = aMerchant({ name: 'Gym Asunción' });

async function createLink(merchant = gym): Promise<string> {
  const response = await fetch(`${base}/api/saleitems/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signMerchantContext(merchant, TEST_INTERNAL_SECRET) },
    body: JSON.stringify(aOneOffLink()),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { slug: string }).slug;
}

/**
 * The statements on links' tables sent while `work` ran, but for the outbox relay's (which runs on its own
 * after a link is created, in transactions of its own).
 */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const from = sent.length;
  await work();
  return sent.slice(from).filter((text) => /"links"\./.test(text) && !/outbox/i.test(text));
}

describe('opening a pay page', () => {
  it('reads the link and its merchant in one statement', async () => {
    const slug = await createLink();
    let html = '';
    const statements = await statementsOf(async () => {
      const response = await fetch(`${base}/pay/${slug}`);
      expect(response.status).toBe(200);
      html = await response.text();
    });
    expect(html).toContain('Gym Asunción');
    expect(statements, statements.join('\n')).toHaveLength(1);
    expect(statements[0]).toMatch(/merchant_profiles/);
  });

  it('shows the merchant as stored now: a changed profile on the next page, none when there is none', async () => {
    const slug = await createLink();
    expect(await (await fetch(`${base}/pay/${slug}`)).text()).toContain('Gym Asunción');
    await migrated.database.db
      .update(merchantProfiles)
      .set({ context: { ...gym, name: 'Gimnasio Nuevo' } })
      .where(eq(merchantProfiles.merchantId, gym.merchantId));
    const renamed = await (await fetch(`${base}/pay/${slug}`)).text();
    expect(renamed).toContain('Gimnasio Nuevo');
    expect(renamed).not.toContain('Gym Asunción');
    await migrated.database.db
      .delete(merchantProfiles)
      .where(eq(merchantProfiles.merchantId, gym.merchantId));
    const response = await fetch(`${base}/pay/${slug}`);
    expect(response.status).toBe(200);
    expect(await response.text()).not.toContain('Gimnasio Nuevo');
  });

  it('a link paid meanwhile is never offered again (each page reads the link)', async () => {
    const merchant = aMerchant();
    const slug = await createLink(merchant);
    const pending = await (await fetch(`${base}/pay/${slug}`)).text();
    expect(pending).toMatch(/data-status="pending"/);
    expect(pending).toMatch(/data-testid="pay-sign-in"/);
    await migrated.database.db
      .update(paymentLinks)
      .set({ statusId: LinkStatus.PAID, paidAt: clock.now() })
      .where(eq(paymentLinks.slug, slug));
    const html = await (await fetch(`${base}/pay/${slug}`)).text();
    expect(html).toMatch(/data-status="paid"/);
    expect(html).not.toMatch(/data-testid="pay-sign-in"/);
  });

  it('answers over HTTP with its length and every security header', async () => {
    const slug = await createLink();
    const response = await fetch(`${base}/pay/${slug}`);
    const html = await response.text();
    expect(response.status).toBe(200);
    // Not a stream of chunks: the page is written whole, its length declared.
    expect(response.headers.get('transfer-encoding')).toBeNull();
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(html)));
    const csp = response.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(html).toContain(`nonce="${nonce}"`);
    expect(csp).toContain('frame-src http://sandbox.test:3005;');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    // A fresh nonce for every page.
    const again = await fetch(`${base}/pay/${slug}`);
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });
});
