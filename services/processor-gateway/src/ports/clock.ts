/** Every "now" of the service comes from here, so tests and demos can move time. */
export interface Clock {
  now(): Date;
}
