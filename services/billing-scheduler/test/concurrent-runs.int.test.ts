import { randomUUID } from 'node:crypto';
import { openDatabase } from '@payrail/db';
import { signOperatorContext } from '@payrail/http';
import { createInProcessBus } from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import type { ServiceInstance } from '@payrail/runtime';
import {
  type ServiceUnderTest,
  startService,
  TEST_INTERNAL_SECRET,
  testClock,
  waitFor,
} from '@payrail/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installments, runItems, subscriptions } from '../src/adapters/postgres/schema';
import { billingSchedulerService } from '../src/service';
import { asOperator, outboxEvents } from './support';

/**
 * Two replicas of billing-scheduler on one database, each asked for a run as of the same day at the same
 * moment: FOR UPDATE SKIP LOCKED shares the due installments; none is claimed twice.
 */
const SUBSCRIPTIONS = 60;
const PER_SUBSCRIPTION = 10;
const clock = testClock(new Date('2027-01-10T15:00:00Z'));
let first: ServiceUnderTest;
let second: ServiceInstance;
let secondDatabase: ReturnType<typeof openDatabase>;

beforeAll(async () => {
  const env = { BILLING_RUN_INTERVAL_MS: '0', BILLING_CLAIM_BATCH: '25' };
  first = await startService(billingSchedulerService, { clock, env });
  secondDatabase = openDatabase({ url: first.testDatabase.url, max: 5 });
  second = await billingSchedulerService.create({
    database: secondDatabase,
    bus: createInProcessBus(),
    logger: createLogger('billing-scheduler', 'silent'),
    clock,
    internalSecret: TEST_INTERNAL_SECRET,
    env,
    upstream: () => async () => new Response(null, { status: 503 }),
  });
  const merchantId = randomUUID();
  const db = first.database.db;
  for (let s = 1; s <= SUBSCRIPTIONS; s += 1) {
    await db
      .insert(subscriptions)
      .values({ subscriptionId: s, merchantId, status: 'active', timezone: 'America/Asuncion' });
    await db.insert(installments).values(
      Array.from({ length: PER_SUBSCRIPTION }, (_, index) => ({
        installmentId: s * 100 + index + 2,
        subscriptionId: s,
        merchantId,
        number: index + 2,
        paymentDate: '2027-01-10',
        dueOn: index % 2 === 0 ? '2027-01-10' : '2027-01-09',
        state: 'scheduled' as const,
      })),
    );
  }
});

afterAll(async () => {
  await second?.stop();
  await secondDatabase?.close();
  await first?.stop();
});

function secondAsOperator(method: string, path: string, body?: unknown) {
  return second.app.fetch(
    new Request(`http://service.test${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...signOperatorContext(method, path, TEST_INTERNAL_SECRET),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

describe('two replicas, two runs at once', () => {
  it('claim every due installment exactly once between them', async () => {
    const [a, b] = await Promise.all([
      asOperator(first, 'POST', '/admin/billing/runs', { asOf: '2027-01-10' }),
      secondAsOperator('POST', '/admin/billing/runs', { asOf: '2027-01-10' }),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    const runIds = [((await a.json()) as { id: string }).id, ((await b.json()) as { id: string }).id];
    const total = SUBSCRIPTIONS * PER_SUBSCRIPTION;
    const runs = await waitFor(async () => {
      const views = await Promise.all(
        runIds.map(
          async (id) =>
            (await (await asOperator(first, 'GET', `/admin/billing/runs/${id}`)).json()) as {
              status: string;
              due: number;
            },
        ),
      );
      return views.every((view) => view.status !== 'claiming') && views;
    }, 30_000);
    expect(runs.reduce((sum, run) => sum + run.due, 0)).toBe(total);

    const events = await outboxEvents(first, 'installment.charge-due');
    const claimedIds = events.map((event) => event.data.installmentId);
    expect(claimedIds).toHaveLength(total);
    expect(new Set(claimedIds).size).toBe(total);
    expect(new Set(events.map((event) => event.data.runId))).toEqual(
      new Set(runs.filter((run) => run.due > 0).map((_, index) => runIds[index])),
    );
    const twice = (await first.database.db.execute(
      sql`select count(*)::int as n from (select installment_id from ${runItems} group by installment_id having count(*) > 1) t`,
    )) as unknown as Array<{ n: number }>;
    expect(twice[0]?.n).toBe(0);
    const left = await first.database.db.execute(
      sql`select count(*)::int as n from ${installments} where state = 'scheduled'`,
    );
    expect((left as unknown as Array<{ n: number }>)[0]?.n).toBe(0);
  });

  it('a row another transaction holds (a projection update) is claimed once it is free, not left behind', async () => {
    const db = first.database.db;
    const merchantId = randomUUID();
    await db
      .insert(subscriptions)
      .values({ subscriptionId: 9001, merchantId, status: 'active', timezone: 'UTC' });
    await db.insert(installments).values(
      [900_102, 900_103].map((installmentId, index) => ({
        installmentId,
        subscriptionId: 9001,
        merchantId,
        number: index + 2,
        paymentDate: '2027-01-10',
        dueOn: '2027-01-10',
        state: 'scheduled' as const,
      })),
    );
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = secondDatabase.db.transaction(async (tx) => {
      await tx.execute(sql`select 1 from ${installments} where installment_id = 900102 for update`);
      locked();
      await held;
    });
    await isLocked;
    const started = await asOperator(first, 'POST', '/admin/billing/runs', {
      asOf: '2027-01-10',
      merchantId,
    });
    const { id } = (await started.json()) as { id: string };
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await holder;
    const run = await waitFor(async () => {
      const view = (await (await asOperator(first, 'GET', `/admin/billing/runs/${id}`)).json()) as {
        status: string;
        due: number;
      };
      return view.status !== 'claiming' && view;
    });
    expect(run.due).toBe(2);
  });
});
