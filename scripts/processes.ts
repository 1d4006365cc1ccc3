import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { DEFAULT_PORTS, type ServiceName } from '@payrail/runtime';

const SERVICES: ServiceName[] = [
  'processor-sandbox',
  'processor-gateway',
  'billing-scheduler',
  'subscriptions',
  'links',
  'gateway',
];

export interface ProcessOptions {
  root: string;
  env: Record<string, string | undefined>;
  /** The gateway's port; the other services take the next ones unless `<NAME>_PORT` is set. */
  port: number;
  /** Where each child's output goes (default: this process's, prefixed with the service name). */
  output?: (service: ServiceName, line: string) => void;
  /** Called as each service answers `/readyz` (the start benchmark times them). */
  onReady?: (service: ServiceName) => void;
  /** Run each service's compiled `dist/main.js` (`npm run build`) instead of its TypeScript through tsx. */
  compiled?: boolean;
  /** Extra Node options for every service (the benchmark's `--cpu-prof`, not allowed in NODE_OPTIONS). */
  nodeArgs?: string[];
}

export interface ProcessSystem {
  children: Map<ServiceName, ChildProcess>;
  urls: Record<ServiceName, string>;
  /** Kills one service (SIGKILL by default: a crash, no graceful shutdown). */
  kill(name: ServiceName, signal?: NodeJS.Signals): Promise<void>;
  /** Starts one service again (after `kill`), optionally with other environment, and waits for `/readyz`. */
  restart(name: ServiceName, env?: Record<string, string>): Promise<void>;
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
  const shared = {
    ...options.env,
    LINKS_URL: urls.links,
    SUBSCRIPTIONS_URL: urls.subscriptions,
    BILLING_SCHEDULER_URL: urls['billing-scheduler'],
    PROCESSOR_GATEWAY_URL: urls['processor-gateway'],
    PROCESSOR_SANDBOX_URL: urls['processor-sandbox'],
    GATEWAY_URL: urls.gateway,
  };
  const output =
    options.output ??
    ((service: ServiceName, line: string) => process.stdout.write(`[${service}] ${line}\n`));
  const children = new Map<ServiceName, ChildProcess>();

  const launch = async (name: ServiceName, extraEnv: Record<string, string> = {}) => {
    // `node --import tsx` rather than the tsx binary: one process per service, so a signal (or a
    // SIGKILL in a crash test) reaches the service itself and leaves no orphan holding the port.
    // Its own process group: a Ctrl-C in the terminal reaches this process only, which stops the
    // services in order; the IPC channel stops them if this process dies without doing so.
    const child = spawn(
      process.execPath,
      options.compiled
        ? [...(options.nodeArgs ?? []), path.join(options.root, 'services', name, 'dist', 'main.js')]
        : [
            ...(options.nodeArgs ?? []),
            '--import',
            'tsx',
            path.join(options.root, 'services', name, 'src', 'main.ts'),
          ],
      {
        cwd: options.root,
        env: { ...shared, ...extraEnv, PORT: String(ports.get(name)), OTEL_SERVICE_NAME: name },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        detached: true,
      },
    );
    children.set(name, child);
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) output(name, line);
      });
    }
    await waitReady(`${urls[name]}/readyz`, child, 60_000);
    options.onReady?.(name);
  };

  const kill = async (name: ServiceName, signal: NodeJS.Signals = 'SIGKILL') => {
    const child = children.get(name);
    if (!child) return;
    const done = exited(child);
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await done;
    clearTimeout(timer);
  };

  const stop = async () => {
    await Promise.all([...children.keys()].map((name) => kill(name, 'SIGTERM')));
  };

  try {
    await Promise.all(SERVICES.map((name) => launch(name)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { children, urls, kill, restart: launch, stop };
}
