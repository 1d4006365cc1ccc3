import { describe, expect, it } from 'vitest';
import { runPayPageBench } from '../bench/pay-page';

// The smoke run of `npm run bench:pay-page` (bench/pay-page.ts), so the script cannot rot: the same code at
// a tiny size, services from their TypeScript. It checks that both sides served the pay page and were
// measured, not how fast.

describe('bench:pay-page at a tiny size', () => {
  it('opens the pay page through the gateway and on the bare page, and measures both', async () => {
    const lines: string[] = [];
    const result = await runPayPageBench({
      connections: 10,
      rounds: 2,
      seconds: 2,
      warmUpSeconds: 1,
      links: 5,
      compiled: false,
      log: (line) => lines.push(line),
    });
    expect(result.rounds).toHaveLength(2);
    for (const round of result.rounds) {
      expect(round.system.requests).toBeGreaterThan(0);
      expect(round.baseline.requests).toBeGreaterThan(0);
      // Every page through the gateway answered 200.
      expect(round.system.failures).toBe(0);
      expect(round.baseline.failures).toBe(0);
      // The CPU each process spent per page: every serving process is measured.
      expect(Object.keys(round.system.cpuMsPerPage)).toEqual(
        expect.arrayContaining(['gateway', 'links', 'postgres', 'bench']),
      );
      expect(round.system.cpuMsPerPage.gateway).toBeGreaterThan(0);
      expect(round.system.cpuMsPerPage.links).toBeGreaterThan(0);
      expect(round.baseline.cpuMsPerPage['bare page']).toBeGreaterThan(0);
    }
    expect(result.ratio).toBeGreaterThan(0);
    expect(Number.isFinite(result.ratio)).toBe(true);
    // The same JSX on both sides: pages of nearly the same size (the nonce and the link's address differ).
    expect(Math.abs(result.pageBytes.system - result.pageBytes.baseline)).toBeLessThan(
      result.pageBytes.baseline * 0.1,
    );
    expect(lines.filter((line) => line.startsWith('round '))).toHaveLength(2);
    expect(lines.filter((line) => line.includes('CPU ms a page: gateway '))).toHaveLength(2);
  }, 300_000);
});
