import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { DEFAULT_PORTS, type ServiceName } from '@payrail/runtime';

export const SERVICES: ServiceName[] = [
  'processor-sandbox',
  'processor-gateway',
  'billing-scheduler',
  'subscriptions',
  'links',
  'gateway',
];

/**
 * V8 options every service process runs with (the image sets the same in `NODE_OPTIONS`). A young
 * generation of up to 32 MB a semi-space, not V8's 16: what a batch of events allocates lives for the
 * batch's round trips to PostgreSQL and RabbitMQ, and with 16 MB much of it outlived a scavenge and was
 * promoted, to be collected again by the slower full collections. At the billing bench's full size the
 * Node processes used about 5 % less CPU per charge (docs/performance.md, measurement of 2026-11-26
 * 12:10). It is a ceiling: an idle process's young generation stays small.
 */
export const SERVICE_NODE_OPTIONS = ['--max-semi-space-size=32'];

/** Every durable consumer the services declare; their queues are deleted after a test or bench run. */
export const CONSUMERS = [
  'subscriptions.create-subscription-on-link-created',
  'subscriptions.activate-subscription-on-link-paid',
  'links.cancel-link-on-subscription-cancelled',
  'links.settle-link-on-payment',
  'links.record-refund-on-refund-succeeded',
  'links.mail-customers-on-account-events',
  'subscriptions.request-charge-on-charge-due',
  'subscriptions.pay-installment-on-payment-succeeded',
  'subscriptions.record-decline-on-payment-failed',
  'subscriptions.record-retry-on-retry-scheduled',
  'subscriptions.fail-installment-on-dunning-exhausted',
  'subscriptions.forget-card-on-payment-method-removed',
  'subscriptions.replace-card-on-payment-method-saved',
  'billing-scheduler.project-installments',
  'billing-scheduler.record-charge-outcomes',
  'processor-gateway.charge-on-charge-requested',
  'processor-gateway.record-movements-on-money-events',
  'gateway.record-webhook-events',
];

export interface ProcessOptions {
  root: string;
  env: Record<string, string | undefined>;
  /** The gateway's port; the other services take the next ones unless `<NAME>_PORT` is set. */
  port: number;
  /**
   * Where each child's output goes (default: this process's, prefixed with the service name, and the
   * replica's number from the second on).
   */
  output?: (service: ServiceName, line: string, replica: number) => void;
  /** Called as each service answers `/readyz` (the start benchmark times them). */
  onReady?: (service: ServiceName) => void;
  /** Run each service's compiled `dist/main.js` (`npm run build`) instead of its TypeScript through tsx. */
  compiled?: boolean;
  /**
   * Extra Node options for every service, after `SERVICE_NODE_OPTIONS` (so one of those can be given again
   * with another value): the benchmark's `--cpu-prof`, not allowed in NODE_OPTIONS.
   */
  nodeArgs?: string[];
  /**
   * Only these services (default: all); the others' URLs are still given to them (the start benchmark
   * times each service started alone).
   */
  only?: ServiceName[];
  /** How many processes of a service to start (default 1); see `ProcessSystem.addReplica`. */
  replicas?: Partial<Record<ServiceName, number>>;
  /**
   * The URL the services are given for a service instead of its first process's: a load balancer in front
   * of its replicas (the rolling-restart test's).
   */
  serviceUrls?: Partial<Record<ServiceName, string>>;
}

/** A second (third…) process of a service: same environment, database and queues, a port of its own. */
export interface Replica {
  name: ServiceName;
  /** 2 for the first extra process of a service. */
  number: number;
  child: ChildProcess;
  url: string;
}

export interface ProcessSystem {
  /** The first process of each service; the others are in `replicas`. */
  children: Map<ServiceName, ChildProcess>;
  urls: Record<ServiceName, string>;
  replicas: Replica[];
  /**
   * Starts one more process of a service on a free port and waits for its `/readyz`. It shares the first
   * one's database and queues (RabbitMQ hands each message to one of them); the other services still call
   * the first one's URL.
   */
  addReplica(name: ServiceName): Promise<Replica>;
  /** Kills one service (SIGKILL by default: a crash, no graceful shutdown). */
  kill(name: ServiceName, signal?: NodeJS.Signals): Promise<void>;
  /** Starts one service again (after `kill`), optionally with other environment, and waits for `/readyz`. */
  restart(name: ServiceName, env?: Record<string, string>): Promise<void>;
  /**
   * Ends one extra process of a service (SIGTERM by default: a graceful shutdown), waits for its exit, starts
   * it again on the same port and waits for its `/readyz`; the replica's `child` is the new process after.
   */
  restartReplica(replica: Replica, signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url} exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} was not ready after ${timeoutMs} ms`);
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/** Ports handed out by `freePort` in this process, whichever copy gave them. */
const HANDED_OUT = Symbol.for('payrail.freePort.handedOut');

/** A port nothing listens on now (the kernel's choice), never one this process handed out before. */
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

/** The variable that sets a service's port (`PORT` for the gateway, which also moves the others). */
export function portVariable(name: ServiceName): string {
  if (name === 'gateway') return 'PORT';
  // The sandbox's port has one name in both modes (the embedded mode gives it a listener too).
  if (name === 'processor-sandbox') return 'SANDBOX_PORT';
  return `${name.toUpperCase().replace(/-/g, '_')}_PORT`;
}

/** Each service's port: the gateway's, the others after it unless `<NAME>_PORT` is set. */
export function servicePorts(
  env: Record<string, string | undefined>,
  port: number,
): Map<ServiceName, number> {
  const ports = new Map<ServiceName, number>();
  for (const name of SERVICES) {
    const fixed = env[portVariable(name)] ?? env[`${name.toUpperCase().replace(/-/g, '_')}_PORT`];
    ports.set(name, name === 'gateway' ? port : Number(fixed ?? port + DEFAULT_PORTS[name] - 3000));
  }
  return ports;
}

/**
 * Starts every service as its own process (`node services/<name>/dist/main.js` when `compiled`, else
 * `node --import tsx services/<name>/src/main.ts`), waits for `/readyz`.
 */
export async function startProcesses(options: ProcessOptions): Promise<ProcessSystem> {
  const ports = servicePorts(options.env, options.port);
  const urls = Object.fromEntries(
    SERVICES.map((name) => [name, `http://127.0.0.1:${ports.get(name)}`]),
  ) as Record<ServiceName, string>;
  const given = { ...urls, ...options.serviceUrls };
  const shared = {
    ...options.env,
    LINKS_URL: given.links,
    SUBSCRIPTIONS_URL: given.subscriptions,
    BILLING_SCHEDULER_URL: given['billing-scheduler'],
    PROCESSOR_GATEWAY_URL: given['processor-gateway'],
    PROCESSOR_SANDBOX_URL: given['processor-sandbox'],
    GATEWAY_URL: given.gateway,
  };
  const output =
    options.output ??
    ((service: ServiceName, line: string, replica: number) =>
      process.stdout.write(`[${service}${replica > 1 ? `-${replica}` : ''}] ${line}\n`));
  const children = new Map<ServiceName, ChildProcess>();
  const replicas: Replica[] = [];

  /** Spawns one process of a service on `port`, its output to `output`, and waits for its `/readyz`. */
  const spawnService = async (
    name: ServiceName,
    port: number,
    replica: number,
    extraEnv: Record<string, string> = {},
  ): Promise<ChildProcess> => {
    // `node --import tsx` rather than the tsx binary: one process per service, so a signal (or a
    // SIGKILL in a crash test) reaches the service itself and leaves no orphan holding the port.
    // Its own process group: a Ctrl-C in the terminal reaches this process only, which stops the
    // services in order; the IPC channel stops them if this process dies without doing so.
    const child = spawn(
      process.execPath,
      options.compiled
        ? [
            ...SERVICE_NODE_OPTIONS,
            ...(options.nodeArgs ?? []),
            path.join(options.root, 'services', name, 'dist', 'main.js'),
          ]
        : [
            ...SERVICE_NODE_OPTIONS,
            ...(options.nodeArgs ?? []),
            '--import',
            'tsx',
            path.join(options.root, 'services', name, 'src', 'main.ts'),
          ],
      {
        cwd: options.root,
        env: { ...shared, ...extraEnv, PORT: String(port), OTEL_SERVICE_NAME: name },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        detached: true,
      },
    );
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) output(name, line, replica);
      });
    }
    return child;
  };

  const launch = async (name: ServiceName, extraEnv: Record<string, string> = {}) => {
    const child = await spawnService(name, ports.get(name) as number, 1, extraEnv);
    children.set(name, child);
    await waitReady(`${urls[name]}/readyz`, child, 60_000);
    options.onReady?.(name);
  };

  const addReplica = async (name: ServiceName): Promise<Replica> => {
    const port = await freePort();
    const number = 2 + replicas.filter((replica) => replica.name === name).length;
    const child = await spawnService(name, port, number);
    const replica = { name, number, child, url: `http://127.0.0.1:${port}` };
    replicas.push(replica);
    await waitReady(`${replica.url}/readyz`, child, 60_000);
    return replica;
  };

  const end = async (child: ChildProcess | undefined, signal: NodeJS.Signals) => {
    if (!child) return;
    const done = exited(child);
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await done;
    clearTimeout(timer);
  };
  const kill = (name: ServiceName, signal: NodeJS.Signals = 'SIGKILL') => end(children.get(name), signal);

  const restartReplica = async (replica: Replica, signal: NodeJS.Signals = 'SIGTERM') => {
    await end(replica.child, signal);
    replica.child = await spawnService(replica.name, Number(new URL(replica.url).port), replica.number);
    await waitReady(`${replica.url}/readyz`, replica.child, 60_000);
  };

  const stop = async () => {
    await Promise.all([
      ...[...children.keys()].map((name) => kill(name, 'SIGTERM')),
      ...replicas.map((replica) => end(replica.child, 'SIGTERM')),
    ]);
  };

  try {
    const started = options.only ?? SERVICES;
    await Promise.all(started.map((name) => launch(name)));
    for (const name of started)
      for (let count = 1; count < (options.replicas?.[name] ?? 1); count += 1) await addReplica(name);
  } catch (error) {
    await stop();
    throw error;
  }
  return { children, urls, replicas, addReplica, kill, restart: launch, restartReplica, stop };
}
