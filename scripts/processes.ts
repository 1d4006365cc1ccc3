import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { DEFAULT_PORTS, type ServiceName } from '@payrail/runtime';

export interface ProcessSystem {
  children: Map<ServiceName, ChildProcess>;
  stop(): Promise<void>;
}

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
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} was not ready after ${timeoutMs} ms`);
}

/** Starts every service as its own process (`tsx services/<name>/src/main.ts`) and waits for `/readyz`. */
export async function startProcesses(options: ProcessOptions): Promise<ProcessSystem> {
  const ports = new Map<ServiceName, number>();
  for (const name of SERVICES) {
    const fixed = options.env[`${name.toUpperCase().replace(/-/g, '_')}_PORT`];
    ports.set(name, name === 'gateway' ? options.port : Number(fixed ?? options.port + DEFAULT_PORTS[name] - 3000));
  }
  const url = (name: ServiceName) => `http://127.0.0.1:${ports.get(name)}`;
  const shared = {
    ...options.env,
    LINKS_URL: url('links'),
    SUBSCRIPTIONS_URL: url('subscriptions'),
    BILLING_SCHEDULER_URL: url('billing-scheduler'),
    PROCESSOR_GATEWAY_URL: url('processor-gateway'),
    PROCESSOR_SANDBOX_URL: url('processor-sandbox'),
    GATEWAY_URL: url('gateway'),
  };
  const tsx = path.join(options.root, 'node_modules', '.bin', 'tsx');
  const output =
    options.output ?? ((service: ServiceName, line: string) => process.stdout.write(`[${service}] ${line}\n`));
  const children = new Map<ServiceName, ChildProcess>();
  const stop = async () => {
    await Promise.all(
      [...children.values()].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
          }),
      ),
    );
  };
  try {
    for (const name of SERVICES) {
      const child = spawn(tsx, [path.join(options.root, 'services', name, 'src', 'main.ts')], {
        cwd: options.root,
        env: { ...shared, PORT: String(ports.get(name)), OTEL_SERVICE_NAME: name },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
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
      await waitReady(`${url(name)}/readyz`, child, 60_000);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { children, stop };
}
