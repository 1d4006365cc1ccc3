import { parseConfig } from '@payrail/config';
import { DEFAULT_PORTS, serviceEnvSchema } from '@payrail/runtime';
import { z } from 'zod';
import { type ChargeTimings, DEFAULT_TIMINGS } from './application/settle-charge';
import type { ProcessorId } from './ports/card-processor';

/** What an adapter needs to reach its processor. */
export interface ProcessorSettings {
  id: ProcessorId;
  baseUrl: string;
  publicKey: string;
  privateKey: string;
  /** Longer than the slowest honest answer (the sandbox's slow card answers after 8 s). */
  timeoutMs: number;
}

export interface ProcessorGatewayConfig {
  processors: Record<ProcessorId, ProcessorSettings>;
  timings: ChargeTimings;
  /** How often the janitor looks for charges to settle; 0 turns the loop off (tests call it directly). */
  janitorIntervalMs: number;
  /** How often the sweep finishes bank transfers left `pending`, and how old such a row must be; 0: off. */
  bankTransferSweepIntervalMs: number;
  /** Larger request bodies are refused with 413. */
  maxBodyBytes: number;
  /** Keep published outbox rows, marked (the test suites read them). */
  keepPublished: boolean;
}

const ms = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/**
 * processor-gateway's own environment, parsed once at start (issue 26: the only place of the service that
 * reads variables; the host's, such as `PORT` and `DATABASE_URL`, are `standaloneEnvSchema`'s). The
 * README's configuration table is checked against this schema by a test.
 */
export const configSchema = serviceEnvSchema.extend({
  /** Base URL of both processors when theirs is not set (default: the sandbox on its default port). */
  PROCESSOR_SANDBOX_URL: z.url().optional(),
  PROCESSOR_A_URL: z.url().optional(),
  PROCESSOR_A_PUBLIC_KEY: z.string().default('sandbox-a-public'),
  PROCESSOR_A_PRIVATE_KEY: z.string().default('sandbox-a-private'),
  PROCESSOR_B_URL: z.url().optional(),
  PROCESSOR_B_PUBLIC_KEY: z.string().default('sandbox-b-public'),
  PROCESSOR_B_PRIVATE_KEY: z.string().default('sandbox-b-private'),
  PROCESSOR_TIMEOUT_MS: ms(20_000),
  CHARGE_JANITOR_INTERVAL_MS: ms(5_000),
  CHARGE_STALE_AFTER_MS: ms(DEFAULT_TIMINGS.staleAfterMs),
  CHARGE_UNKNOWN_CHECK_AFTER_MS: ms(DEFAULT_TIMINGS.unknownCheckAfterMs),
  CHARGE_RECHECK_AFTER_MS: ms(DEFAULT_TIMINGS.recheckAfterMs),
  HOSTED_PAYMENT_TTL_MS: ms(DEFAULT_TIMINGS.hostedPaymentTtlMs),
  CHARGE_NOT_FOUND_FINAL_AFTER_MS: ms(DEFAULT_TIMINGS.notFoundFinalAfterMs),
  /** How often bank transfers left `pending` are finished, and how old they must be; 0 turns it off. */
  BANK_TRANSFER_SWEEP_INTERVAL_MS: ms(60_000),
});

/**
 * The service's settings from an environment (a `ConfigError` names each wrong variable). Keys and base URL
 * per processor: without a URL, both processors are the sandbox (its own origin, on its default port unless
 * `PROCESSOR_SANDBOX_URL` says otherwise); the default keys are the sandbox's demo keys.
 */
export function loadConfig(environment: Record<string, string | undefined>): ProcessorGatewayConfig {
  const parsed = parseConfig(configSchema, environment);
  const sandbox = parsed.PROCESSOR_SANDBOX_URL ?? `http://127.0.0.1:${DEFAULT_PORTS['processor-sandbox']}`;
  return {
    processors: {
      'PARAGUAY.PROCESSOR_A': {
        id: 'PARAGUAY.PROCESSOR_A',
        baseUrl: parsed.PROCESSOR_A_URL ?? sandbox,
        publicKey: parsed.PROCESSOR_A_PUBLIC_KEY,
        privateKey: parsed.PROCESSOR_A_PRIVATE_KEY,
        timeoutMs: parsed.PROCESSOR_TIMEOUT_MS,
      },
      'PARAGUAY.PROCESSOR_B': {
        id: 'PARAGUAY.PROCESSOR_B',
        baseUrl: parsed.PROCESSOR_B_URL ?? sandbox,
        publicKey: parsed.PROCESSOR_B_PUBLIC_KEY,
        privateKey: parsed.PROCESSOR_B_PRIVATE_KEY,
        timeoutMs: parsed.PROCESSOR_TIMEOUT_MS,
      },
    },
    timings: {
      staleAfterMs: parsed.CHARGE_STALE_AFTER_MS,
      unknownCheckAfterMs: parsed.CHARGE_UNKNOWN_CHECK_AFTER_MS,
      recheckAfterMs: parsed.CHARGE_RECHECK_AFTER_MS,
      hostedPaymentTtlMs: parsed.HOSTED_PAYMENT_TTL_MS,
      // A send's steps before the request that moves money (our database, A's card listing, B's order) get
      // half a request deadline, far more than they take; that request gets its own deadline; then 5 s for
      // it to be read and acted on at the processor.
      sendWindowMs: Math.floor(parsed.PROCESSOR_TIMEOUT_MS / 2),
      callDeadlineMs: Math.floor(parsed.PROCESSOR_TIMEOUT_MS / 2) + parsed.PROCESSOR_TIMEOUT_MS + 5_000,
      notFoundFinalAfterMs: parsed.CHARGE_NOT_FOUND_FINAL_AFTER_MS,
    },
    janitorIntervalMs: parsed.CHARGE_JANITOR_INTERVAL_MS,
    bankTransferSweepIntervalMs: parsed.BANK_TRANSFER_SWEEP_INTERVAL_MS,
    maxBodyBytes: parsed.MAX_BODY_BYTES,
    keepPublished: parsed.OUTBOX_KEEP_PUBLISHED,
  };
}
