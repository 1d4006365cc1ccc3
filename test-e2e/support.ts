import path from 'node:path';
import type { ServiceName } from '@payrail/runtime';
import { CONSUMERS, freePort, startProcesses, type ProcessSystem } from '../scripts/processes';

export { freePort };

export const ROOT = path.resolve(__dirname, '..');
export const DEMO_TOKEN = '6a1f0f0e-3d7b-4c2a-9b8e-2f4d6c8a0b1c';

export interface E2eSystem extends ProcessSystem {
  gatewayUrl: string;
  logs: string[];
  env: Record<string, string>;
}

/** Where the services will listen, known before they start (for env that names public URLs). */
export interface SystemPorts {
  gatewayUrl: string;
  sandboxUrl: string;
}

/**
 * Starts every service as its own process on the test database and broker, on free ports. `env` may be
 * made from the ports, e.g. a `PUBLIC_BASE_URL` a browser can reach.
 */
export async function startSystem(
  env: Record<string, string> | ((ports: SystemPorts) => Record<string, string>),
): Promise<E2eSystem> {
  const names: ServiceName[] = [
    'gateway',
    'links',
    'subscriptions',
    'billing-scheduler',
    'processor-gateway',
    'processor-sandbox',
  ];
  const ports: Record<string, string> = {};
  for (const name of names) ports[`${name.toUpperCase().replace(/-/g, '_')}_PORT`] = String(await freePort());
  const port = Number(ports.GATEWAY_PORT);
  const given =
    typeof env === 'function'
      ? env({
          gatewayUrl: `http://127.0.0.1:${port}`,
          sandboxUrl: `http://127.0.0.1:${ports.PROCESSOR_SANDBOX_PORT}`,
        })
      : env;
  const fullEnv = { ...process.env, ...ports, ...given } as Record<string, string>;
  const logs: string[] = [];
  const system = await startProcesses({
    root: ROOT,
    env: fullEnv,
    port,
    output: (service, line, replica) => logs.push(`[${service}${replica > 1 ? `-${replica}` : ''}] ${line}`),
  });
  return { ...system, gatewayUrl: `http://127.0.0.1:${port}`, logs, env: fullEnv };
}

export { CONSUMERS };
