import type { Server } from 'node:http';
import { serve } from '@hono/node-server';

/** Anything with Hono's `fetch` (an app, or a router composed of apps). */
export interface FetchApp {
  fetch: (request: Request) => Response | Promise<Response>;
}

export interface RunningServer {
  port: number;
  /** Stops accepting connections and resolves once in-flight requests have finished. */
  close(): Promise<void>;
}

/**
 * How long the server keeps an idle connection open (Node's default, made explicit): the callers' pools
 * drop an idle socket sooner (`UPSTREAM_IDLE_SOCKET_MS`), so a call never goes out on one being closed.
 */
export const SERVER_KEEP_ALIVE_MS = 5_000;

/** Serves `app` on `port`; rejects (a port in use gives `code: 'EADDRINUSE'`) instead of crashing. */
export async function listen(app: FetchApp, port: number, hostname = '0.0.0.0'): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname }, (info) => {
      (server as Server).off('error', reject);
      resolve({
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            (server as Server).close(() => done());
            // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
            (server as Server).closeIdleConnections?.();
          }),
      });
    });
    (server as Server).keepAliveTimeout = SERVER_KEEP_ALIVE_MS;
    (server as Server).once('error', reject);
  });
}

/** True when `error` is the operating system refusing a port that something else listens on. */
export function isPortInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}

export interface ShutdownSteps {
  /** 1. `/readyz` answers 503 so the load balancer stops sending traffic. */
  markNotReady?: () => void;
  /** 2. Stop accepting requests; wait for in-flight ones. */
  closeServer?: () => Promise<void>;
  /** 3. Cancel consumers; wait for in-flight handlers. */
  drainConsumers?: () => Promise<void>;
  /** 4. Stop the outbox relay after its current batch. */
  stopRelay?: () => Promise<void>;
  /** 5. Close the broker connection. */
  closeBroker?: () => Promise<void>;
  /** 6. Close the database pool. */
  closeDatabase?: () => Promise<void>;
  /** 7. Flush telemetry last, so the shutdown itself is traced and logged. */
  flushTelemetry?: () => Promise<void>;
}

export const SHUTDOWN_ORDER = [
  'markNotReady',
  'closeServer',
  'drainConsumers',
  'stopRelay',
  'closeBroker',
  'closeDatabase',
  'flushTelemetry',
] as const satisfies ReadonlyArray<keyof ShutdownSteps>;

/**
 * Runs the shutdown steps in order, each at most once; a failing step is reported and the next still
 * runs, so a broken broker cannot keep the database pool open.
 */
export function createShutdown(
  steps: ShutdownSteps,
  onError: (step: string, error: unknown) => void = () => {},
): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= (async () => {
      for (const name of SHUTDOWN_ORDER) {
        const step = steps[name];
        if (!step) continue;
        try {
          await step();
        } catch (error) {
          onError(name, error);
        }
      }
    })();
    return running;
  };
}

/** SIGTERM/SIGINT run the shutdown, then exit; a second signal exits at once. */
export function shutdownOnSignals(shutdown: () => Promise<void>, graceMs = 25_000): void {
  let signalled = false;
  const handler = () => {
    if (signalled) process.exit(1);
    signalled = true;
    const timer = setTimeout(() => process.exit(1), graceMs);
    timer.unref();
    shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
