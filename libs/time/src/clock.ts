/**
 * The clock port: every "now" in the services comes from here, never from `new Date()` in domain or
 * application code, so tests and demos can set and move time.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until told otherwise: for tests, and for demos that move through months. */
export interface SimulatedClock extends Clock {
  set(date: Date): void;
  advance(ms: number): void;
}

export function simulatedClock(start: Date): SimulatedClock {
  let current = new Date(start);
  return {
    now: () => new Date(current),
    set(date) {
      current = new Date(date);
    },
    advance(ms) {
      current = new Date(current.getTime() + ms);
    },
  };
}
