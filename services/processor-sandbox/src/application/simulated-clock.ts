import type { Clock } from '@payrail/runtime';

/**
 * The sandbox's own time: the service clock plus an offset the test API can move, so alias TTLs,
 * same-day rules and retry schedules can be tested without waiting.
 */
export class SimulatedClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly base: Clock) {}

  now(): Date {
    return new Date(this.base.now().getTime() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  set(instant: Date): void {
    this.offsetMs = instant.getTime() - this.base.now().getTime();
  }

  reset(): void {
    this.offsetMs = 0;
  }

  offsetSeconds(): number {
    return Math.round(this.offsetMs / 1000);
  }
}
