import { describe, expect, it } from 'vitest';
import { runWebhooksBench } from '../bench/webhooks';

// The smoke run of `npm run bench:webhooks` (bench/webhooks.ts), so the script cannot rot: the same code at
// a tiny size, the gateway from its TypeScript, the hanging receiver holding 2 s. It checks that every
// phase ran and delivered, not how fast.

describe('bench:webhooks at a tiny size', () => {
  it('delivers every event through the gateway and the bare loop, and measures while one receiver hangs', async () => {
    const lines: string[] = [];
    const result = await runWebhooksBench({
      events: 400,
      hangMs: 2_000,
      compiled: false,
      log: (line) => lines.push(line),
    });
    // Half in the burst, all delivered; the bare loop sent the same payloads.
    expect(result.burst.events).toBe(200);
    expect(result.baseline.events).toBe(200);
    expect(result.burst.deliveriesPerSecond).toBeGreaterThan(0);
    expect(result.ratio).toBeGreaterThan(0);
    // Every event of the answering merchants arrived; none twice.
    expect(result.missing).toBe(0);
    expect(result.duplicates).toBe(0);
    expect(result.steady.count).toBe(100);
    // The last quarter: 100 events, 5 of them the hanging merchant's (one merchant in 20).
    expect(result.othersWhileHanging.count).toBe(95);
    // How many of the hanging merchant's requests are held when it is measured depends on timing: printed, not asserted.
    expect(result.othersWhileHanging.p99).toBeGreaterThan(0);
    // The burst's cost as measured: CPU a delivery of the gateway and of PostgreSQL, the deliveries
    // table's figures, and what the autovacuum stand-in did meanwhile (nothing, in a run this short).
    expect(result.burst.cpuMsPerDelivery.gateway).toBeGreaterThan(0);
    expect(result.burst.cpuMsPerDelivery.postgres).toBeGreaterThan(0);
    expect(result.burst.buffersPerDelivery.hit).toBeGreaterThan(0);
    expect(result.burst.deliveriesTable).toMatch(
      /^\d+ updates \(\d+ HOT\), \d+ dead, \d+ pages; its indexes: /,
    );
    expect(result.maintenance.vacuumed).toBeGreaterThanOrEqual(0);
    expect(lines.filter((line) => /^(burst|baseline|steady|merchant 20)/.test(line))).toHaveLength(8);
  }, 300_000);
});
