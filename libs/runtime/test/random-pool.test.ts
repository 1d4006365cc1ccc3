import { describe, expect, it } from 'vitest';
import { randomPool } from '../src/random-pool';

describe('randomPool', () => {
  it('hands out every byte once, across refills of the pool', () => {
    const take = randomPool(64);
    const slices = Array.from({ length: 50 }, () => take(16));
    expect(slices.every((bytes) => bytes.length === 16)).toBe(true);
    // 50 slices of 16 from pools of 64: a reused byte range would repeat a slice.
    expect(new Set(slices.map((bytes) => bytes.toString('hex'))).size).toBe(50);
    const kept = slices.map((bytes) => bytes.toString('hex'));
    take(16);
    // Slices already handed out never change afterwards.
    expect(slices.map((bytes) => bytes.toString('hex'))).toEqual(kept);
  });

  it('gives a request larger than the pool in one piece', () => {
    expect(randomPool(8)(32).length).toBe(32);
  });
});
