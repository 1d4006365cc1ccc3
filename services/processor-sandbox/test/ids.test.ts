import { describe, expect, it } from 'vitest';
import { randomToken } from '../src/application/ids';

describe('sandbox identifiers', () => {
  it('are hex and never hold a run of more than 4 digits', () => {
    for (let i = 0; i < 2_000; i += 1) {
      const token = randomToken(20);
      expect(token).toMatch(/^[0-9a-f]{40}$/);
      expect(token).not.toMatch(/\d{5}/);
    }
  });
});
