import type { DatabaseHandle } from '@payrail/db';
import type { FetchApp, Upstream } from '@payrail/http';
import type { MessageBus } from '@payrail/messaging';
import type { Logger } from '@payrail/observability';

import type { Clock } from '@payrail/time';

/** The clock port lives in libs/time; re-exported for the composition code that imports it from here. */
export { type Clock, systemClock } from '@payrail/time';

export type ServiceName =
  | 'gateway'
  | 'links'
  | 'subscriptions'
  | 'billing-scheduler'
  | 'processor-gateway'
  | 'processor-sandbox';

export type { Upstream } from '@payrail/http';

export interface ServiceDependencies {
  /** The service's own database (absent for the sandbox). Migrations are already applied. */
  database: DatabaseHandle;
  bus: MessageBus;
  logger: Logger;
  clock: Clock;
  /** HMAC secret for the signed merchant context. */
  internalSecret: string;
  /** The process environment, for service-specific settings (each service parses its own). */
  env: Record<string, string | undefined>;
  upstream(name: ServiceName): Upstream;
  /**
   * True when every service runs in this one process (`npm start` without DATABASE_URL): conveniences for
   * a developer's machine (the development mailbox) default to on there.
   */
  embedded?: boolean;
}

export interface ServiceInstance {
  app: FetchApp;
  /** `/readyz` answers 503 from now on. */
  markNotReady(): void;
  /** Subscribes consumers, starts the outbox relay and background jobs. */
  start(): Promise<void>;
  /** Stops the outbox relay and background jobs (consumers are drained by the host before). */
  stop(): Promise<void>;
}

export interface ServiceDefinition {
  name: ServiceName;
  defaultPort: number;
  /** Postgres schema and drizzle-kit output folder, for services with a database. */
  database?: { schema: string; migrationsFolder: string };
  /**
   * Embedded mode serves only the gateway, in memory; a service that browsers must reach on its own
   * origin (the processor sandbox's card forms) gets its own listener, and its URL is put in `urlVariable`
   * of the environment the services after it are created with.
   */
  embeddedListener?: {
    port(env: Record<string, string | undefined>, gatewayPort: number): number;
    urlVariable: string;
  };
  /**
   * Parses the service's own environment (its `src/config.ts`), throwing a `ConfigError` that names each
   * wrong variable. A standalone start calls it before connecting to anything, so a wrong variable stops
   * the process with one line; `create` parses the same environment again for its values.
   */
  loadConfig(env: Record<string, string | undefined>): unknown;
  create(deps: ServiceDependencies): Promise<ServiceInstance>;
}

/** The readiness checks of a service with a database and a broker connection (`/readyz`). */
export function readinessChecks(deps: Pick<ServiceDependencies, 'database' | 'bus'>) {
  return {
    database: () => deps.database.ping(),
    broker: () => {
      if (!deps.bus.isReady()) throw new Error('broker not connected or a consumer is not consuming');
    },
  };
}
