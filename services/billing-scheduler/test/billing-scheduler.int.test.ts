import { parseConfig } from '@payrail/config';
import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import {
  deleteBrokerTopology,
  type ServiceUnderTest,
  startService,
  testAmqpUrl,
  testClock,
  uniqueName,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES_CONSUMER } from '../src/adapters/messaging/record-charge-outcomes-on-charge-outcomes.consumer';
import { PROJECTION_CONSUMER } from '../src/adapters/messaging/project-installments-on-subscription-events.consumer';
import { configSchema } from '../src/config';
import { billingSchedulerService } from '../src/service';
import {
  aSubscription,
  asOperator,
  chargeRequested,
  chargeSkipped,
  handled,
  installmentPaid,
  installmentsEvent,
  outboxEvents,
  paymentFailed,
  paymentSucceeded,
  projected,
  publishAndWait,
  runToEnd,
  subscriptionCreated,
  subscriptionStatus,
  type TestSubscription,
} from './support';

/**
 * billing-scheduler on real PostgreSQL and RabbitMQ: subscriptions' events in through the broker, runs
 * through the operator API, `installment.charge-due` and dunning events out through the outbox.
 * Two deployments: real time (the clock is set per test) and simulated time (runs travel to future days).
 */
let bus: MessageBus;
let real: ServiceUnderTest;
let simulated: ServiceUnderTest;
const clock = testClock(new Date('2026-12-10T15:00:00Z'));
const exchange = uniqueName('billing_test');
const queuePrefix = `${uniqueName('billing_test')}.`;
const simulatedPrefix = `${uniqueName('billing_sim')}.`;
let simulatedBus: MessageBus;
/** `real` reclaims a claim with no outcome after three hours (the default is four). */
const RECLAIM_AFTER_MS = 3 * 60 * 60 * 1000;

beforeAll(async () => {
  bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  simulatedBus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix: simulatedPrefix });
  real = await startService(billingSchedulerService, {
    bus,
    clock,
    env: { BILLING_RUN_INTERVAL_MS: '0', BILLING_RECLAIM_AFTER_MS: String(RECLAIM_AFTER_MS) },
  });
  simulated = await startService(billingSchedulerService, {
    bus: simulatedBus,
    clock,
    env: { BILLING_RUN_INTERVAL_MS: '0', SIMULATED_TIME: 'true' },
  });
});

afterAll(async () => {
  await real?.stop();
  await simulated?.stop();
  await bus?.close();
  await simulatedBus?.close();
  await deleteBrokerTopology(testAmqpUrl(), exchange, [
    ...[PROJECTION_CONSUMER, OUTCOMES_CONSUMER].map((consumer) => `${queuePrefix}${consumer}`),
    ...[PROJECTION_CONSUMER, OUTCOMES_CONSUMER].map((consumer) => `${simulatedPrefix}${consumer}`),
  ]);
});

/** Both deployments consume the same exchange: each event reaches both. */
async function publish(event: Parameters<typeof publishAndWait>[2]) {
  await publishAndWait([real, simulated], bus, event);
}

async function activeSubscription(options: Parameters<typeof aSubscription>[0]): Promise<TestSubscription> {
  const subscription = aSubscription(options);
  await publish(subscriptionCreated(subscription));
  await publish(subscriptionStatus(subscription, 'subscription.activated'));
  const first = subscription.installments[0];
  if (first) await publish(installmentPaid(subscription, first.installmentId));
  return subscription;
}

const idOf = (subscription: TestSubscription, number: number) =>
  subscription.installments[number - 1]?.installmentId as number;

async function chargeDueOf(svc: ServiceUnderTest, installmentId: number) {
  return (await outboxEvents(svc, 'installment.charge-due')).filter(
    (event) => event.data.installmentId === installmentId,
  );
}

describe('the projection of subscriptions’ installments', () => {
  it('follows created, activated, paid, date changes, cancellations and the end of the subscription', async () => {
    clock.set(new Date('2026-12-01T15:00:00Z'));
    const subscription = aSubscription({ dates: ['2026-12-10', '2027-01-10', '2027-02-10'] });
    const created = subscriptionCreated(subscription);
    await publish(created);
    // Redelivered: the inbox makes it nothing.
    await publish(created);
    expect(await projected(real, idOf(subscription, 2))).toMatchObject({
      state: 'scheduled',
      dueOn: '2026-12-10',
      attempt: 1,
      merchantId: subscription.merchantId,
    });

    await publish(subscriptionStatus(subscription, 'subscription.activated'));
    await publish(installmentPaid(subscription, idOf(subscription, 1)));
    expect((await projected(real, idOf(subscription, 1)))?.state).toBe('paid');

    await publish(
      installmentsEvent(subscription, 'installments.updated', [
        { installmentId: idOf(subscription, 2), paymentDate: '2026-12-15' },
      ]),
    );
    expect(await projected(real, idOf(subscription, 2))).toMatchObject({
      dueOn: '2026-12-15',
      paymentDate: '2026-12-15',
    });

    await publish(
      installmentsEvent(subscription, 'installments.cancelled', [{ installmentId: idOf(subscription, 3) }]),
    );
    expect((await projected(real, idOf(subscription, 3)))?.state).toBe('cancelled');

    // As of 2026-12-15 only installment 2 is due; the cancelled one never is.
    clock.set(new Date('2027-03-01T15:00:00Z'));
    const cancelledSubscriptionRun = async () => {
      const run = await runToEnd(real, { asOf: '2027-03-01', merchantId: subscription.merchantId });
      return run.due;
    };
    await publish(subscriptionStatus(subscription, 'subscription.cancelled'));
    // A cancelled subscription is charged no more, whatever is due.
    expect(await cancelledSubscriptionRun()).toBe(0);
    // An activation delivered late does not bring a cancelled subscription back.
    await publish(subscriptionStatus(subscription, 'subscription.activated'));
    expect(await cancelledSubscriptionRun()).toBe(0);
    expect(await chargeDueOf(real, idOf(subscription, 2))).toHaveLength(0);
  });

  it("is not sent an installment.paid its automatic charge paid (that charge's payment.succeeded marks it paid), only the others", async () => {
    clock.set(new Date('2026-12-01T15:00:00Z'));
    const subscription = await activeSubscription({ dates: ['2026-12-10', '2027-01-10', '2027-02-10'] });
    const byCharge = installmentPaid(subscription, idOf(subscription, 2), 1);
    await bus.publish({ id: byCharge.id, type: byCharge.type, body: JSON.stringify(byCharge) });
    // Published after it on the same exchange: once this one is handled, the first would have been too.
    await publish(installmentPaid(subscription, idOf(subscription, 3)));
    for (const svc of [real, simulated]) {
      expect((await projected(svc, idOf(subscription, 3)))?.state).toBe('paid');
      expect(await handled(svc, byCharge.id)).toBe(false);
      expect((await projected(svc, idOf(subscription, 2)))?.state).toBe('scheduled');
    }
  });

  it('adds the installments scheduled later (a DYNAMIC invoice) and claims them on their day', async () => {
    clock.set(new Date('2026-12-20T15:00:00Z'));
    const subscription = await activeSubscription({ dates: [] });
    const added = 90_000 + subscription.subscriptionId;
    await publish(
      installmentsEvent(subscription, 'installments.scheduled', [
        { installmentId: added, number: 2, paymentDate: '2026-12-20' },
      ]),
    );
    const run = await runToEnd(real, { asOf: '2026-12-20', merchantId: subscription.merchantId });
    expect(run.due).toBe(1);
    expect(await chargeDueOf(real, added)).toHaveLength(1);
  });
});

describe('runs', () => {
  it('claims what is due as of the day once, emits charge-due with the attempt, and counts the outcomes', async () => {
    clock.set(new Date('2026-12-10T15:00:00Z'));
    const subscription = await activeSubscription({ dates: ['2026-12-10', '2027-01-10'] });
    const run = await runToEnd(real, { asOf: '2026-12-10', merchantId: subscription.merchantId });
    expect(run).toMatchObject({ due: 1, requested: 0, succeeded: 0, status: 'charging' });
    const [due] = await chargeDueOf(real, idOf(subscription, 2));
    expect(due?.data).toMatchObject({
      runId: run.id,
      merchantId: subscription.merchantId,
      subscriptionId: subscription.subscriptionId,
      attempt: 1,
      dueOn: '2026-12-10',
      asOf: '2026-12-10',
    });
    // Claimed: a second run finds nothing more.
    expect((await runToEnd(real, { asOf: '2026-12-10', merchantId: subscription.merchantId })).due).toBe(0);

    await publishAndWait([real, simulated], bus, chargeRequested(subscription, idOf(subscription, 2), 1));
    await publishAndWait([real, simulated], bus, paymentSucceeded(subscription, idOf(subscription, 2), 1));
    const after = await (await asOperator(real, 'GET', `/admin/billing/runs/${run.id}`)).json();
    expect(after).toMatchObject({
      due: 1,
      requested: 1,
      succeeded: 1,
      failed: 0,
      skipped: 0,
      status: 'completed',
    });
    expect((await projected(real, idOf(subscription, 2)))?.state).toBe('paid');

    const list = (await (
      await asOperator(real, 'GET', `/admin/billing/runs?merchantId=${subscription.merchantId}`)
    ).json()) as { runs: Array<{ id: string }> };
    expect(list.runs.map((one: { id: string }) => one.id)).toContain(run.id);
  });

  it("claims by each merchant's own today: due 2026-12-10 at 01:00 UTC is due in UTC, not yet in Asunción", async () => {
    clock.set(new Date('2026-12-10T01:00:00Z'));
    const asuncion = await activeSubscription({ timezone: 'America/Asuncion', dates: ['2026-12-10'] });
    const utc = await activeSubscription({ timezone: 'UTC', dates: ['2026-12-10'] });
    await runToEnd(real, { asOf: '2026-12-10' });
    expect(await chargeDueOf(real, idOf(utc, 2))).toHaveLength(1);
    expect(await chargeDueOf(real, idOf(asuncion, 2))).toHaveLength(0);
    expect((await projected(real, idOf(asuncion, 2)))?.state).toBe('scheduled');

    // 03:30 UTC is 00:30 on the 10th in Asunción (UTC-3 in December): now it is due there too.
    clock.set(new Date('2026-12-10T03:30:00Z'));
    await runToEnd(real, { asOf: '2026-12-10' });
    const [due] = await chargeDueOf(real, idOf(asuncion, 2));
    expect(due?.data).toMatchObject({ attempt: 1, asOf: '2026-12-10' });
  });

  it('refuses a future asOf (422) without simulated time, and stores no run', async () => {
    clock.set(new Date('2026-12-10T15:00:00Z'));
    const subscription = await activeSubscription({ dates: ['2026-12-12'] });
    const response = await asOperator(real, 'POST', '/admin/billing/runs', {
      asOf: '2026-12-12',
      merchantId: subscription.merchantId,
    });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({ code: 'AS_OF_IN_FUTURE' });
    const list = (await (
      await asOperator(real, 'GET', `/admin/billing/runs?merchantId=${subscription.merchantId}`)
    ).json()) as { runs: Array<{ id: string }> };
    expect(list.runs).toEqual([]);
    expect(await chargeDueOf(real, idOf(subscription, 2))).toHaveLength(0);
  });

  it('with SIMULATED_TIME a future asOf travels, for the one merchant named', async () => {
    clock.set(new Date('2026-12-10T15:00:00Z'));
    const mine = await activeSubscription({ dates: ['2027-01-10'] });
    const other = await activeSubscription({ dates: ['2027-01-10'] });
    const run = await runToEnd(simulated, { asOf: '2027-01-10', merchantId: mine.merchantId });
    expect(run.due).toBe(1);
    expect(await chargeDueOf(simulated, idOf(mine, 2))).toHaveLength(1);
    expect(await chargeDueOf(simulated, idOf(other, 2))).toHaveLength(0);
  });

  it('refuses SIMULATED_TIME=true with NODE_ENV=production', () => {
    expect(() => parseConfig(configSchema, { NODE_ENV: 'production', SIMULATED_TIME: 'true' })).toThrow(
      /SIMULATED_TIME/,
    );
    expect(parseConfig(configSchema, { NODE_ENV: 'production' }).SIMULATED_TIME).toBe(false);
  });

  it('answers 401 without the operator signature the gateway adds, and 404 for an unknown run', async () => {
    expect((await real.request('GET', '/admin/billing/runs')).status).toBe(401);
    const missing = await asOperator(real, 'GET', '/admin/billing/runs/7d1f0a3c-9b2e-4c5d-8e6f-1a2b3c4d5e6f');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'BILLING_RUN_NOT_FOUND' });
    const bad = await asOperator(real, 'POST', '/admin/billing/runs', { asOf: '2026-02-30' });
    expect(bad.status).toBe(400);
  });
});

describe('dunning', () => {
  async function failAttempt(
    subscription: TestSubscription,
    number: number,
    attempt: number,
    category: 'soft' | 'hard' | 'card-blocked',
    blockedUntil?: string,
  ) {
    await publishAndWait(
      [real, simulated],
      bus,
      paymentFailed(subscription, idOf(subscription, number), attempt, category, blockedUntil),
    );
  }

  it('retries a soft decline on +1, +3 and +5 days after the first attempt, then gives up', async () => {
    clock.set(new Date('2026-12-10T15:00:00Z'));
    const subscription = await activeSubscription({ dates: ['2027-01-10'] });
    const installmentId = idOf(subscription, 2);
    const merchantId = subscription.merchantId;
    const days: string[] = [];
    for (const [attempt, asOf] of [
      [1, '2027-01-10'],
      [2, '2027-01-11'],
      [3, '2027-01-13'],
      [4, '2027-01-15'],
    ] as const) {
      // The day before the retry, nothing is due.
      const early = await runToEnd(simulated, { asOf: addDay(asOf, -1), merchantId });
      expect(early.due, `as of the day before ${asOf}`).toBe(0);
      const run = await runToEnd(simulated, { asOf, merchantId });
      expect(run.due, `as of ${asOf}`).toBe(1);
      const due = (await chargeDueOf(simulated, installmentId)).at(-1);
      expect(due?.data.attempt).toBe(attempt);
      days.push(due?.data.asOf as string);
      await failAttempt(subscription, 2, attempt, 'soft');
    }
    expect(days).toEqual(['2027-01-10', '2027-01-11', '2027-01-13', '2027-01-15']);
    const retries = (await outboxEvents(simulated, 'installment.retry-scheduled')).filter(
      (event) => event.data.installmentId === installmentId,
    );
    expect(
      retries.map((event) => [event.data.failedAttempt, event.data.nextAttempt, event.data.nextAttemptOn]),
    ).toEqual([
      [1, 2, '2027-01-11'],
      [2, 3, '2027-01-13'],
      [3, 4, '2027-01-15'],
    ]);
    const exhausted = (await outboxEvents(simulated, 'installment.dunning-exhausted')).filter(
      (event) => event.data.installmentId === installmentId,
    );
    expect(exhausted.map((event) => event.data)).toEqual([
      {
        merchantId,
        subscriptionId: subscription.subscriptionId,
        installmentId,
        attempts: 4,
        reason: 'attempts-exhausted',
        cancelAfterFailedInstallments: null,
      },
    ]);
    expect((await projected(simulated, installmentId))?.state).toBe('failed');
    expect((await runToEnd(simulated, { asOf: '2027-02-01', merchantId })).due).toBe(0);
  });

  it('never retries a hard decline', async () => {
    const subscription = await activeSubscription({ dates: ['2027-01-10'] });
    await runToEnd(simulated, { asOf: '2027-01-10', merchantId: subscription.merchantId });
    await failAttempt(subscription, 2, 1, 'hard');
    const [exhausted] = (await outboxEvents(simulated, 'installment.dunning-exhausted')).filter(
      (event) => event.data.installmentId === idOf(subscription, 2),
    );
    expect(exhausted?.data).toMatchObject({ attempts: 1, reason: 'hard-decline' });
    expect(
      (await outboxEvents(simulated, 'installment.retry-scheduled')).filter(
        (event) => event.data.installmentId === idOf(subscription, 2),
      ),
    ).toEqual([]);
  });

  it('waits for the end of a card block, and takes the next day when the block end is unknown', async () => {
    const subscription = await activeSubscription({ dates: ['2027-01-10', '2027-01-10'] });
    await runToEnd(simulated, { asOf: '2027-01-10', merchantId: subscription.merchantId });
    // 2027-02-09T12:00Z is 09:00 on the 9th in Asunción.
    await failAttempt(subscription, 2, 1, 'card-blocked', '2027-02-09T12:00:00Z');
    await failAttempt(subscription, 3, 1, 'card-blocked');
    expect(await projected(simulated, idOf(subscription, 2))).toMatchObject({
      state: 'scheduled',
      attempt: 2,
      dueOn: '2027-02-09',
    });
    expect(await projected(simulated, idOf(subscription, 3))).toMatchObject({
      state: 'scheduled',
      attempt: 2,
      dueOn: '2027-01-11',
    });
  });

  it("follows the merchant's own policy, set by the operator", async () => {
    const subscription = await activeSubscription({ dates: ['2027-01-10'] });
    const path = `/admin/merchants/${subscription.merchantId}/dunning-policy`;
    const before = await (await asOperator(simulated, 'GET', path)).json();
    expect(before).toMatchObject({
      retryOffsetDays: [1, 3, 5],
      cancelAfterFailedInstallments: null,
      isDefault: true,
    });
    const refused = await asOperator(simulated, 'PUT', path, {
      retryOffsetDays: [3, 2],
      cancelAfterFailedInstallments: null,
    });
    expect(refused.status).toBe(400);
    const set = await asOperator(simulated, 'PUT', path, {
      retryOffsetDays: [2],
      cancelAfterFailedInstallments: 3,
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({
      retryOffsetDays: [2],
      cancelAfterFailedInstallments: 3,
      isDefault: false,
    });

    await runToEnd(simulated, { asOf: '2027-01-10', merchantId: subscription.merchantId });
    await failAttempt(subscription, 2, 1, 'soft');
    expect(await projected(simulated, idOf(subscription, 2))).toMatchObject({
      attempt: 2,
      dueOn: '2027-01-12',
    });
    await runToEnd(simulated, { asOf: '2027-01-12', merchantId: subscription.merchantId });
    await failAttempt(subscription, 2, 2, 'soft');
    const [exhausted] = (await outboxEvents(simulated, 'installment.dunning-exhausted')).filter(
      (event) => event.data.installmentId === idOf(subscription, 2),
    );
    // The rule's N goes with it: subscriptions counts the failed installments and cancels at 3.
    expect(exhausted?.data).toMatchObject({
      attempts: 2,
      reason: 'attempts-exhausted',
      cancelAfterFailedInstallments: 3,
    });
  });

  it('asks again on retryOn after the 24-hour card cap skipped the attempt, and counts the skip', async () => {
    const subscription = await activeSubscription({ dates: ['2027-01-10'] });
    const run = await runToEnd(simulated, { asOf: '2027-01-10', merchantId: subscription.merchantId });
    const installmentId = idOf(subscription, 2);
    await publishAndWait(
      [real, simulated],
      bus,
      chargeSkipped(
        subscription,
        { runId: run.id, installmentId, attempt: 1 },
        'card-attempt-cap',
        '2027-01-11',
      ),
    );
    expect(await projected(simulated, installmentId)).toMatchObject({
      state: 'scheduled',
      attempt: 1,
      dueOn: '2027-01-11',
    });
    const counted = await (await asOperator(simulated, 'GET', `/admin/billing/runs/${run.id}`)).json();
    expect(counted).toMatchObject({ due: 1, skipped: 1, status: 'completed' });
    await runToEnd(simulated, { asOf: '2027-01-11', merchantId: subscription.merchantId });
    const dues = await chargeDueOf(simulated, installmentId);
    expect(dues.map((event) => [event.data.attempt, event.data.asOf])).toEqual([
      [1, '2027-01-10'],
      [1, '2027-01-11'],
    ]);
  });

  it('a stale outcome (another attempt) changes nothing', async () => {
    const subscription = await activeSubscription({ dates: ['2027-01-10'] });
    await runToEnd(simulated, { asOf: '2027-01-10', merchantId: subscription.merchantId });
    await failAttempt(subscription, 2, 1, 'soft');
    // The same decline again under another message id (a replay) is not a second failure.
    await failAttempt(subscription, 2, 1, 'soft');
    expect(await projected(simulated, idOf(subscription, 2))).toMatchObject({
      state: 'scheduled',
      attempt: 2,
      dueOn: '2027-01-11',
    });
  });
});

describe('reclaim of a claim whose outcome never came', () => {
  const later = (from: Date, ms: number) => new Date(from.getTime() + ms);

  it('sends charge-due again for the same attempt once per BILLING_RECLAIM_AFTER_MS, never for a settled one', async () => {
    const claimedAt = new Date('2027-02-10T15:00:00Z');
    clock.set(claimedAt);
    const subscription = await activeSubscription({ dates: ['2027-02-10', '2027-02-10'] });
    const merchantId = subscription.merchantId;
    const lost = idOf(subscription, 2);
    const settled = idOf(subscription, 3);
    const run = async (at: Date) => {
      clock.set(at);
      return runToEnd(real, { asOf: '2027-02-10', merchantId });
    };

    const first = await run(claimedAt);
    expect(first.due).toBe(2);
    // Installment 3's outcome comes back; installment 2's never does (dead-lettered, lost).
    await publishAndWait([real, simulated], bus, chargeRequested(subscription, settled, 1));
    await publishAndWait([real, simulated], bus, paymentSucceeded(subscription, settled, 1));

    // A minute short of the reclaim time: still waiting.
    expect((await run(later(claimedAt, RECLAIM_AFTER_MS - 60_000))).due).toBe(0);
    expect(await chargeDueOf(real, lost)).toHaveLength(1);

    // At the reclaim time a later run claims it again: the same attempt and as-of day, under its own run.
    const reclaim = await run(later(claimedAt, RECLAIM_AFTER_MS));
    expect(reclaim.due).toBe(1);
    const dues = await chargeDueOf(real, lost);
    expect(dues.map((event) => [event.data.runId, event.data.attempt, event.data.asOf])).toEqual([
      [first.id, 1, '2027-02-10'],
      [reclaim.id, 1, '2027-02-10'],
    ]);
    expect(await projected(real, lost)).toMatchObject({
      state: 'claimed',
      attempt: 1,
      lastRunId: reclaim.id,
    });

    // Once per reclaim: the reclaimed claim waits its own full time before the next.
    expect((await run(later(claimedAt, RECLAIM_AFTER_MS + 60_000))).due).toBe(0);
    expect((await run(later(claimedAt, 2 * RECLAIM_AFTER_MS - 60_000))).due).toBe(0);
    expect(await chargeDueOf(real, lost)).toHaveLength(2);
    const again = await run(later(claimedAt, 2 * RECLAIM_AFTER_MS));
    expect(again.due).toBe(1);
    expect((await chargeDueOf(real, lost)).map((event) => [event.data.runId, event.data.attempt])).toEqual([
      [first.id, 1],
      [reclaim.id, 1],
      [again.id, 1],
    ]);

    // The attempt's outcome, when it finally comes, settles the row and every run that claimed it.
    await publishAndWait([real, simulated], bus, paymentSucceeded(subscription, lost, 1));
    expect((await projected(real, lost))?.state).toBe('paid');
    for (const each of [first, reclaim, again]) {
      const progress = await (await asOperator(real, 'GET', `/admin/billing/runs/${each.id}`)).json();
      expect(progress, `run ${each.id}`).toMatchObject({ status: 'completed', failed: 0, skipped: 0 });
    }

    // Settled rows are never sent again, however late.
    expect((await run(later(claimedAt, 10 * RECLAIM_AFTER_MS))).due).toBe(0);
    expect(await chargeDueOf(real, lost)).toHaveLength(3);
    expect((await chargeDueOf(real, settled)).map((event) => event.data.runId)).toEqual([first.id]);
  });

  it('settles a reclaimed attempt subscriptions had already decided by what its skip says', async () => {
    const claimedAt = new Date('2027-03-10T15:00:00Z');
    clock.set(claimedAt);
    const subscription = await activeSubscription({
      dates: ['2027-03-10', '2027-03-10', '2027-03-10', '2027-03-10'],
    });
    const merchantId = subscription.merchantId;
    const paid = idOf(subscription, 2);
    const declined = idOf(subscription, 3);
    const cancelled = idOf(subscription, 4);
    const inFlight = idOf(subscription, 5);
    const first = await runToEnd(real, { asOf: '2027-03-10', merchantId });
    expect(first.due).toBe(4);
    clock.set(new Date(claimedAt.getTime() + RECLAIM_AFTER_MS));
    const reclaim = await runToEnd(real, { asOf: '2027-03-10', merchantId });
    expect(reclaim.due).toBe(4);

    // subscriptions' answers to the repeats: each attempt was decided, its answer to us lost.
    const answer = async (
      installmentId: number,
      reason: 'not-pending' | 'attempt-already-requested',
      state: Parameters<typeof chargeSkipped>[4],
    ) =>
      publishAndWait(
        [real, simulated],
        bus,
        chargeSkipped(subscription, { runId: reclaim.id, installmentId, attempt: 1 }, reason, null, state),
      );
    await answer(paid, 'attempt-already-requested', {
      installmentStatus: 'paid',
      attemptStatus: 'succeeded',
    });
    await answer(declined, 'attempt-already-requested', {
      installmentStatus: 'pending',
      attemptStatus: 'failed',
      declineCategory: 'soft',
    });
    await answer(cancelled, 'not-pending', { installmentStatus: 'cancelled' });
    await answer(inFlight, 'attempt-already-requested', {
      installmentStatus: 'processing',
      attemptStatus: 'requested',
    });

    expect((await projected(real, paid))?.state).toBe('paid');
    expect(await projected(real, declined)).toMatchObject({
      state: 'scheduled',
      attempt: 2,
      dueOn: '2027-03-11',
    });
    const [retry] = (await outboxEvents(real, 'installment.retry-scheduled')).filter(
      (event) => event.data.installmentId === declined,
    );
    expect(retry?.data).toMatchObject({ failedAttempt: 1, nextAttempt: 2, nextAttemptOn: '2027-03-11' });
    expect((await projected(real, cancelled))?.state).toBe('cancelled');
    // Still in flight: its outcome (or the next reclaim) settles it.
    expect(await projected(real, inFlight)).toMatchObject({ state: 'claimed', attempt: 1 });

    const progress = async (id: string) =>
      (await asOperator(real, 'GET', `/admin/billing/runs/${id}`)).json();
    expect(await progress(first.id)).toMatchObject({
      due: 4,
      succeeded: 1,
      failed: 1,
      skipped: 1,
      status: 'charging',
    });
    expect(await progress(reclaim.id)).toMatchObject({ due: 4, skipped: 4, status: 'completed' });

    // Only the one in flight is asked again at the next reclaim time.
    clock.set(new Date(claimedAt.getTime() + 2 * RECLAIM_AFTER_MS));
    expect((await runToEnd(real, { asOf: '2027-03-10', merchantId })).due).toBe(1);
    const asked = async (installmentId: number) => (await chargeDueOf(real, installmentId)).length;
    expect([await asked(paid), await asked(declined), await asked(cancelled), await asked(inFlight)]).toEqual(
      [2, 2, 2, 3],
    );
  });
});

function addDay(date: string, days: number): string {
  const shifted = new Date(`${date}T00:00:00Z`);
  shifted.setUTCDate(shifted.getUTCDate() + days);
  return shifted.toISOString().slice(0, 10);
}
