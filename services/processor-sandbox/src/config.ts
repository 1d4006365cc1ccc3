import { exitOnConfigError, parseConfig } from '@payrail/config';
import { z } from 'zod';
import type { SandboxSettings } from './application/sandbox-state';

/**
 * processor-sandbox's own environment, parsed once at start (issue 26: the only place of the service that
 * reads variables; the host's, such as `PORT`, are `standaloneEnvSchema`'s). It has no database, outbox
 * or request limit of its own, so it reads none of `serviceEnvSchema`'s variables: only where it listens,
 * the simulated processors' keys, and where it sends webhooks and browsers. The README's configuration
 * table is checked against this schema by a test.
 */
export const configSchema = z.object({
  /** The sandbox's port in every mode (alone it wins over `PORT`; embedded, over gateway port + 5). */
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Where B's return page is by default (the pay page's origin). */
  PUBLIC_BASE_URL: z.url().default('http://localhost:3000'),
  SANDBOX_PROCESSOR_A_PUBLIC_KEY: z.string().default('sandbox-a-public'),
  SANDBOX_PROCESSOR_A_PRIVATE_KEY: z.string().default('sandbox-a-private'),
  /** A's confirmation webhook; unset: processor-gateway's `/webhooks/processor-a`. */
  SANDBOX_PROCESSOR_A_WEBHOOK_URL: z.url().optional(),
  SANDBOX_PROCESSOR_B_PUBLIC_KEY: z.string().default('sandbox-b-public'),
  SANDBOX_PROCESSOR_B_PRIVATE_KEY: z.string().default('sandbox-b-private'),
  /** B's notification; unset: processor-gateway's `/webhooks/processor-b`. */
  SANDBOX_PROCESSOR_B_NOTIFICATION_URL: z.url().optional(),
  /** B's return page, a template where `($hash)` is the order's hash; unset: the pay page's. */
  SANDBOX_PROCESSOR_B_RETURN_URL: z.string().optional(),
});

export type SandboxConfig = z.infer<typeof configSchema>;

/** The service's settings from an environment; a `ConfigError` names each wrong variable. */
export function loadConfig(environment: Record<string, string | undefined>): SandboxConfig {
  return parseConfig(configSchema, environment);
}

/** Keys and where the sandbox sends and sends browsers back, as configured (the test API may change them). */
export function sandboxSettings(config: SandboxConfig): SandboxSettings {
  const publicBase = config.PUBLIC_BASE_URL.replace(/\/$/, '');
  return {
    processorA: {
      publicKey: config.SANDBOX_PROCESSOR_A_PUBLIC_KEY,
      privateKey: config.SANDBOX_PROCESSOR_A_PRIVATE_KEY,
      webhookUrl: config.SANDBOX_PROCESSOR_A_WEBHOOK_URL,
    },
    processorB: {
      publicKey: config.SANDBOX_PROCESSOR_B_PUBLIC_KEY,
      privateKey: config.SANDBOX_PROCESSOR_B_PRIVATE_KEY,
      notificationUrl: config.SANDBOX_PROCESSOR_B_NOTIFICATION_URL,
      returnUrlTemplate:
        config.SANDBOX_PROCESSOR_B_RETURN_URL ?? `${publicBase}/pay/processor-b/return?hash=($hash)`,
    },
  };
}

/** Embedded: gateway port + 5 unless `SANDBOX_PORT` says otherwise (0 stays 0: a free port, for tests). */
export function sandboxPort(environment: Record<string, string | undefined>, gatewayPort: number): number {
  const { SANDBOX_PORT } = loadConfig(environment);
  if (SANDBOX_PORT !== undefined) return SANDBOX_PORT;
  return gatewayPort === 0 ? 0 : gatewayPort + 5;
}

/**
 * Alone (`main.ts`): `SANDBOX_PORT`, when set, becomes the host's `PORT`, since it names the sandbox's port
 * in every mode. A wrong value stops the process with one line naming it.
 */
export function listenOnSandboxPort(environment: Record<string, string | undefined>): void {
  const { SANDBOX_PORT } = exitOnConfigError(() => loadConfig(environment));
  if (SANDBOX_PORT !== undefined) environment.PORT = String(SANDBOX_PORT);
}
