import { describe, expect, it } from 'vitest';
import { runBillingBench } from '../bench/billing';

// The smoke run of `npm run bench:billing` (bench/billing.ts), so the script cannot rot: the same code at a
// tiny size, services from their TypeScript. 20 subscriptions subscribed on the pay page, a warm-up month,
// two monthly runs with one process of billing-scheduler, subscriptions and processor-gateway, the bare
// baseline's 40 charges, two more monthly runs with two of each.

describe('bench:billing at a tiny size', () => {
  it('charges every due installment once at the sandbox, with one and with two processes each', async () => {
    const lines: string[] = [];
    const result = await runBillingBench({
      subscriptions: 20,
      months: 2,
      seedConcurrency: 4,
      compiled: false,
      log: (line) => lines.push(line),
      progressMs: 2_000,
    });
    expect(result.seeded).toBe(20);
    expect(result.phases.map((phase) => [phase.replicas, phase.runs, phase.charges])).toEqual([
      [1, 2, 40],
      [2, 2, 40],
    ]);
    for (const phase of result.phases) expect(phase.chargesPerSecond).toBeGreaterThan(0);
    // Both replica settings really ran: each phase counts the processes it measured.
    expect(result.phases[1]?.cpu.map((p) => p.process)).toEqual(
      expect.arrayContaining(['billing-scheduler-2', 'subscriptions-2', 'processor-gateway-2']),
    );
    // The step timings come from rows every step leaves: each phase has them, the whole way longer than any step.
    for (const phase of result.phases) {
      const stages = new Map(phase.stages.map((step) => [step.stage, step.medianSeconds]));
      expect(stages.size).toBe(4);
      expect(stages.get('claimed to counted')).toBeGreaterThan(stages.get("the sandbox's charge") as number);
    }
    // The warm-up month's 20 charges as well. The bench's services run as deployed, whatever the suite's
    // OUTBOX_KEEP_PUBLISHED: their relays deleted every row they published.
    expect(result.ledger).toMatchObject({
      expected: 100,
      charged: 100,
      duplicates: 0,
      unpaid: 0,
      outboxRows: 0,
    });
    expect(Number.isFinite(result.ratio)).toBe(true);
    // The bare baseline ran in the same run, as many charges as the one-process phase, none twice.
    expect(result.baseline).toMatchObject({ charges: 40, declined: 0, chargedTwice: 0 });
    expect(result.baselineRatio).toBeGreaterThan(0);
  }, 300_000);
});
