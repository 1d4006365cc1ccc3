import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@payrail/contracts';
import { type DatabaseHandle, openDatabase } from '@payrail/db';
import {
  createOutboxRelay,
  type DeliveredMessage,
  type MessageBus,
  postgresUnitOfWork,
} from '@payrail/messaging';
import { createLogger } from '@payrail/observability';
import { createTestDatabase, type TestDatabase, testClock } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectInstallmentsOnSubscriptionEvents } from '../src/adapters/messaging/project-installments-on-subscription-events.consumer';
import { recordChargeOutcomesOnChargeOutcomes } from '../src/adapters/messaging/record-charge-outcomes-on-charge-outcomes.consumer';
import { postgresRunStore } from '../src/adapters/postgres/run-store';
import { inbox, outbox } from '../src/adapters/postgres/schema';
import { billingStores } from '../src/adapters/postgres/stores';
import { claimRun } from '../src/application/run-billing';
import { billingSchedulerService } from '../src/service';
import {
  aSubscription,
  chargeRequested,
  installmentPaid,
  paymentSucceeded,
  subscriptionCreated,
  subscriptionStatus,
  type TestSubscription,
} from './support';

/**
 * The statements billing-scheduler sends per charge on real PostgreSQL, BEGIN and COMMIT included: the
 * claim of a run, the outbox relay's batch, and each consumer's batch of 50 messages of one kind, through
 * the consumers' own handlers (the messages handed over at once, so they make one batch).
 */
const BATCH = 50;
const clock = testClock(new Date('2026-12-10T15:00:00Z'));
let testDatabase: TestDatabase;
let database: DatabaseHandle;
const sent: string[] = [];

beforeAll(async () => {
  testDatabase = await createTestDatabase('billing_statements');
  database = openDatabase({ url: testDatabase.url, max: 2, onQuery: (text) => sent.push(text) });
  if (billingSchedulerService.database) await database.migrate(billingSchedulerService.database);
});

afterAll(async () => {
  await database?.close();
  await testDatabase?.drop();
});

/** The statements `work` sent, and the process CPU it used (µs). */
async function counted(work: () => Promise<unknown>): Promise<{ statements: string[]; cpuMicros: number }> {
  sent.length = 0;
  const before = process.cpuUsage();
  await work();
  const cpu = process.cpuUsage(before);
  return { statements: [...sent], cpuMicros: cpu.user + cpu.system };
}

function delivered(event: EventEnvelope): DeliveredMessage {
  return { id: event.id, type: event.type, body: JSON.stringify(event), headers: {}, attempt: 1 };
}

/** Hands every message over at once: the batching handler gathers them into one batch. */
async function deliverAll(handler: (message: DeliveredMessage) => Promise<void>, events: EventEnvelope[]) {
  await Promise.all(events.map((event) => handler(delivered(event))));
}

const unitOfWork = () => postgresUnitOfWork({ db: database.db, inbox, stores: billingStores });

/** `count` active subscriptions, each with its second installment due on the clock's day. */
async function activeSubscriptions(count: number): Promise<TestSubscription[]> {
  const merchantId = randomUUID();
  const subscriptions = Array.from({ length: count }, () =>
    aSubscription({ merchantId, timezone: 'UTC', dates: ['2026-12-10'] }),
  );
  const project = projectInstallmentsOnSubscriptionEvents(unitOfWork()).handler;
  await deliverAll(project, subscriptions.map(subscriptionCreated));
  await deliverAll(
    project,
    subscriptions.map((subscription) => subscriptionStatus(subscription, 'subscription.activated')),
  );
  return subscriptions;
}

function claim(runId: string) {
  return claimRun(
    {
      runs: postgresRunStore(database.db),
      clock,
      simulatedTime: true,
      batchSize: 500,
      lockWaitMs: 0,
      reclaimAfterMs: 4 * 60 * 60 * 1000,
      logger: { warn: () => {} },
    },
    { id: runId, trigger: 'schedule', asOf: '2026-12-10', merchantId: null, startedAt: clock.now() },
  );
}

const second = (subscription: TestSubscription) => subscription.installments[1]?.installmentId as number;

interface ChargeFigures {
  claim: number;
  relay: number;
  requested: number;
  succeeded: number;
  paid: number;
  cpuMicros: { requested: number; succeeded: number; paid: number };
}

/** A batch of charges through the whole chain, as far as billing-scheduler's statements go. */
async function chargeBatch(): Promise<ChargeFigures> {
  const subscriptions = await activeSubscriptions(BATCH);
  const outcomes = recordChargeOutcomesOnChargeOutcomes(unitOfWork(), clock).handler;
  const project = projectInstallmentsOnSubscriptionEvents(unitOfWork()).handler;
  const claimed = await counted(() => claim(randomUUID()));
  const bus = { publish: async () => {} } as unknown as MessageBus;
  const relay = createOutboxRelay({
    database,
    outbox,
    schemaName: 'billing_scheduler',
    bus,
    logger: createLogger('billing-scheduler', 'silent'),
  });
  const relayed = await counted(() => relay.runOnce());
  const requested = await counted(() =>
    deliverAll(
      outcomes,
      subscriptions.map((subscription) => chargeRequested(subscription, second(subscription), 1)),
    ),
  );
  const succeeded = await counted(() =>
    deliverAll(
      outcomes,
      subscriptions.map((subscription) => paymentSucceeded(subscription, second(subscription), 1)),
    ),
  );
  // Not a charge's any more (its installment.paid goes to `installment.paid.by-charge`, which the
  // projection is not bound to): installments paid otherwise, e.g. by bank transfers, a batch at once.
  const paid = await counted(() =>
    deliverAll(
      project,
      subscriptions.map((subscription) => installmentPaid(subscription, second(subscription))),
    ),
  );
  return {
    claim: claimed.statements.length,
    relay: relayed.statements.length,
    requested: requested.statements.length,
    succeeded: succeeded.statements.length,
    paid: paid.statements.length,
    cpuMicros: { requested: requested.cpuMicros, succeeded: succeeded.cpuMicros, paid: paid.cpuMicros },
  };
}

describe('statements per charge, a batch of 50 of each kind', () => {
  it('a consumer batch costs the same few statements whatever its size; the claim and relay one set per batch', async () => {
    await chargeBatch(); // warm-up: statements prepared, modules compiled
    const runs: ChargeFigures[] = [];
    for (let run = 0; run < 5; run += 1) runs.push(await chargeBatch());
    const figures = runs[0] as ChargeFigures;
    // Each batch of every run sends as many statements as the first; CPU is the median of the five.
    for (const other of runs) expect({ ...other, cpuMicros: 0 }).toEqual({ ...figures, cpuMicros: 0 });
    const median = (of: (run: ChargeFigures) => number) =>
      runs.map(of).sort((a, b) => a - b)[Math.floor(runs.length / 2)] as number;
    figures.cpuMicros = {
      requested: median((run) => run.cpuMicros.requested),
      succeeded: median((run) => run.cpuMicros.succeeded),
      paid: median((run) => run.cpuMicros.paid),
    };
    const perCharge = (figures.claim + figures.relay + figures.requested + figures.succeeded) / BATCH;
    console.log(
      `billing-scheduler statements for ${BATCH} charges: claim ${figures.claim}, relay ${figures.relay}, ` +
        `charge.requested ${figures.requested}, payment.succeeded ${figures.succeeded}; ` +
        `${perCharge.toFixed(2)} a charge (and installment.paid of ${BATCH} transfers ${figures.paid}). process CPU per batch of ${BATCH}, median of 5 (µs): charge.requested ${figures.cpuMicros.requested}, ` +
        `payment.succeeded ${figures.cpuMicros.succeeded}, installment.paid ${figures.cpuMicros.paid}`,
    );
    // The time zones, then BEGIN, the claim (with its run items), the run, the outbox, COMMIT; finishing the run.
    expect(figures.claim).toBe(7);
    // BEGIN, the rows locked, marked published, COMMIT.
    expect(figures.relay).toBe(4);
    // BEGIN, the inbox, then the run items marked; COMMIT.
    expect(figures.requested).toBe(4);
    // BEGIN, the inbox, then the run items marked, the installments read and written; COMMIT.
    expect(figures.succeeded).toBe(6);
    // BEGIN, the inbox, then the installments read and written; COMMIT.
    expect(figures.paid).toBe(5);
  });
});
