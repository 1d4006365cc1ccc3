import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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

/** How often a closing server closes the keep-alive connections that have become idle. */
const CLOSING_SWEEP_MS = 100;

/**
 * Serves `app` on `port`; rejects (a port in use gives `code: 'EADDRINUSE'`) instead of crashing.
 *
 * `close()` is a graceful end for callers that keep connections alive (another service's pool, a load
 * balancer): `server.close()` alone stops accepting connections, but a kept-alive one that was busy goes on
 * carrying new requests for as long as its caller sends them, so under load the close never finished and the
 * process was killed at the end of its grace period, its in-flight requests and handlers with it (the rolling
 * restart test, test-e2e/rolling-restart.e2e.test.ts). Once closing, every answer, in flight or new, says
 * `Connection: close` and its connection is closed after it; connections idle now or later are closed at once.
 */
export async function listen(app: FetchApp, port: number, hostname = '0.0.0.0'): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const inFlight = new Set<ServerResponse>();
    let closing = false;
    const server = serve({ fetch: app.fetch, port, hostname }, (info) => {
      (server as Server).off('error', reject);
      resolve({
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            for (const response of inFlight) if (!response.headersSent) response.shouldKeepAlive = false;
            // Idle keep-alive sockets would hold close() open; in-flight requests still finish, and their
            // connections close after their answer (or, once idle, at the next sweep).
            const sweep = setInterval(() => (server as Server).closeIdleConnections?.(), CLOSING_SWEEP_MS);
            (server as Server).close(() => {
              clearInterval(sweep);
              done();
            });
            (server as Server).closeIdleConnections?.();
          }),
      });
    });
    // Before Hono's own listener: before any answer is written.
    (server as Server).prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      if (closing) response.shouldKeepAlive = false;
      inFlight.add(response);
      response.once('close', () => inFlight.delete(response));
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
