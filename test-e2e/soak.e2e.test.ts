import { expect, it } from 'vitest';
import { runSoak } from '../bench/soak';

// The CI form of `npm run soak` (bench/soak.ts): the same system as processes and the same mixed load, for
// SOAK_MINUTES (3) at SOAK_RATE (8 operations a second: a shared two-core machine runs the whole suite
// beside it), the services from their TypeScript. Shorter than 10 minutes, the verdict is enforced on errors,
// money and webhooks only; the timings and memory are printed, not judged. About four minutes in all.
const minutes = Number(process.env.SOAK_MINUTES || 3);

it(`holds ${minutes} minutes of mixed load with no error, every charge once and every webhook once`, async () => {
  const lines: string[] = [];
  const result = await runSoak({
    minutes,
    rate: Number(process.env.SOAK_RATE || 8),
    daySeconds: 10,
    maxInFlight: 100,
    compiled: false,
    log: (line) => {
      lines.push(line);
      console.log(`[soak] ${line}`);
    },
  });
  console.log(result.summary);
  // One row a minute and one at the load's end, each with every process's memory.
  expect(result.rows.length).toBeGreaterThanOrEqual(minutes);
  for (const row of result.rows) {
    expect(Object.keys(row.processes).sort()).toEqual(
      [
        'billing-scheduler',
        'gateway',
        'links',
        'processor-gateway',
        'processor-sandbox',
        'subscriptions',
      ].sort(),
    );
    for (const figures of Object.values(row.processes)) expect(figures.rssMb).toBeGreaterThan(0);
  }
  // Errors: no 5xx, no other failure.
  expect(result.errorSamples).toEqual([]);
  expect(result.serverErrors).toBe(0);
  expect(result.otherErrors).toBe(0);
  // Money: the load paid links, subscribed, and billing runs debited; the ledger agrees with us.
  expect(result.money.linkPaymentsSeen).toBeGreaterThan(0);
  expect(result.money.installmentsCharged).toBeGreaterThan(0);
  expect(result.money.declinedLedgerCharges).toBeGreaterThan(0);
  expect(result.money).toMatchObject({
    duplicateReferences: 0,
    unknownReferences: 0,
    missingAtSandbox: 0,
    installmentsChargedTwice: 0,
    linksChargedTwice: 0,
    paidWithoutCharge: 0,
    chargedNotPaid: 0,
    ok: true,
  });
  // Every link a customer saw approved charged once, and no link charged that nobody paid.
  expect(result.money.seenNotCharged).toEqual([]);
  expect(result.money.chargedNotSeen).toEqual([]);
  // Webhooks: through the receiver's downtime, every event delivered, none twice.
  expect(result.webhooks.events).toBeGreaterThan(0);
  expect(result.webhooks).toMatchObject({ duplicates: 0, missing: 0, ok: true });
  expect(result.pass).toBe(true);
  expect(result.summary).toMatch(/^soak: pass /);
}, 900_000);
