import { describe, expect, it } from 'vitest';
import { runConsoleBench } from '../bench/console';

// The smoke run of `npm run bench:console` (bench/console.ts), so the script cannot rot: the same code at a
// tiny size, services from their TypeScript. It checks that an owner signed in, that home, the payments
// pages and their API calls answered and were measured, not how fast.

describe('bench:console at a tiny size', () => {
  it('signs an owner in and measures home and the payments pages beside their API calls', async () => {
    const lines: string[] = [];
    const result = await runConsoleBench({
      rows: 3000,
      seconds: 1,
      connections: 2,
      compiled: false,
      log: (line) => lines.push(line),
    });
    expect(result.pairs.map(({ page }) => page.path)).toEqual([
      '/console',
      '/console/payments',
      '/console/payments?status=declined',
    ]);
    expect(result.pairs[0]?.api.path).toMatch(
      /^\/api\/reports\/summary\?from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}&groupBy=day$/,
    );
    for (const { page, api } of result.pairs) {
      expect(page.requests).toBeGreaterThan(0);
      expect(api.requests).toBeGreaterThan(0);
      // Every page (signed in: not a redirect to the sign-in) and every API call answered 200.
      expect(page.failures).toBe(0);
      expect(api.failures).toBe(0);
    }
    expect(result.inserted).toBeGreaterThanOrEqual(6000);
    expect(result.totalsAgree).toBe(true);
    expect(lines.some((line) => line.startsWith('first summary of 30 days'))).toBe(true);
  }, 300_000);
});
