import { randomBytes } from 'node:crypto';
import net from 'node:net';

/** Default local servers, used when no URL is given in the environment. */
export const LOCAL_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const LOCAL_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** A short random suffix that makes database, exchange and queue names unique per test file. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${uniqueSuffix()}`;
}

export async function isReachable(url: string, defaultPort: number, timeoutMs = 1000): Promise<boolean> {
  const parsed = new URL(url);
  const port = Number(parsed.port || defaultPort);
  return new Promise((resolve) => {
    const socket = net.connect({ host: parsed.hostname, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Ports handed out by `freePort` in this process, whichever copy gave them. */
const HANDED_OUT = Symbol.for('payrail.freePort.handedOut');

/** A TCP port nothing listens on at the moment, on loopback, never one this process handed out before. */
export async function freePort(): Promise<number> {
  // The kernel may give a port it gave a moment ago (seen: 2 runs of six calls in 1,000 held a repeat), and
  // a port handed out is not bound until its process starts: two services given one port, the second fails
  // to listen while the first answers its /readyz. So no port is handed out twice by this process (the set
  // is shared with the other copy of this function, scripts/processes.ts or libs/test-infra).
  const shared = globalThis as Record<symbol, Set<number> | undefined>;
  const given = shared[HANDED_OUT] ?? new Set<number>();
  shared[HANDED_OUT] = given;
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    if (given.has(port)) continue;
    given.add(port);
    return port;
  }
}
