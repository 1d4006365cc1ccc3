// The operator CLI: the admin API's operations at a shell, straight against the gateway's database.
//   DATABASE_URL=postgres://... npm run admin -- merchants create --name "Gym" --instance NATIONAL
import { parseArgs } from 'node:util';
import { createMerchantRequest, updateMerchantRequest } from '@payrail/contracts';
import { openDatabase } from '@payrail/db';
import { systemClock } from '@payrail/time';
import type { z } from 'zod';
import { merchantView } from './adapters/http/routes';
import { postgresMerchantStore } from './adapters/postgres/merchant-store';
import { createMerchant } from './application/create-merchant';
import type { MerchantAdminDeps } from './application/deps';
import { getMerchant } from './application/get-merchant';
import { issueApiToken } from './application/issue-api-token';
import { revokeApiToken } from './application/revoke-api-token';
import { updateMerchant } from './application/update-merchant';
import { loadCliConfig } from './config';
import { ApiTokenNotFound, InvalidMerchantSettings, MerchantNotFound } from './domain/errors';
import { gatewayService } from './service';

export const USAGE = `Operator CLI (needs DATABASE_URL, the gateway's PostgreSQL):

  merchants create --name <name> --instance NATIONAL|INTERNATIONAL [settings]
  merchants get <merchantId>
  merchants update <merchantId> [settings]
  tokens issue <merchantId>
  tokens revoke <merchantId> <tokenId>

settings:
  --currency PYG|USD|EUR        NATIONAL: PYG; INTERNATIONAL: USD (default) or EUR
  --saas-contract true|false    default false
  --no-login-enabled true|false default false
  --customer-cancel-allowed true|false  customers cancel on /pay/account; default false
  --callback-url <url>|none     enables redirectUrl on links (same origin)
  --timezone <IANA zone>        default America/Asuncion
  --processors A,B              default PARAGUAY.PROCESSOR_A,PARAGUAY.PROCESSOR_B

Prints JSON. An API token is printed once, when issued: only its hash is stored.`;

const OPTIONS = {
  name: { type: 'string' },
  instance: { type: 'string' },
  currency: { type: 'string' },
  'saas-contract': { type: 'string' },
  'no-login-enabled': { type: 'string' },
  'customer-cancel-allowed': { type: 'string' },
  'callback-url': { type: 'string' },
  timezone: { type: 'string' },
  processors: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface CliIo {
  /** The environment the CLI reads `DATABASE_URL` from (`config.ts`); by default the process's. */
  env?: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

class UsageError extends Error {}

function booleanOption(value: string | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new UsageError(`--${flag} takes true or false`);
}

/** The settings options as a request body, for the same zod schemas the admin API uses. */
function settingsFrom(values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const text = (name: string) => values[name] as string | undefined;
  const callbackUrl = text('callback-url');
  const body: Record<string, unknown> = {
    name: text('name'),
    instance: text('instance')?.toUpperCase(),
    currency: text('currency')?.toUpperCase(),
    saasContract: booleanOption(text('saas-contract'), 'saas-contract'),
    noLoginEnabled: booleanOption(text('no-login-enabled'), 'no-login-enabled'),
    customerCancelAllowed: booleanOption(text('customer-cancel-allowed'), 'customer-cancel-allowed'),
    callbackUrl: callbackUrl === 'none' ? null : callbackUrl,
    timezone: text('timezone'),
    processors: text('processors')
      ?.split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

function parsed<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const lines = result.error.issues.map(
    (issue) => `  ${issue.path.join('.') || '(settings)'}: ${issue.message}`,
  );
  throw new UsageError(`invalid settings:\n${lines.join('\n')}`);
}

function argument(positionals: string[], index: number, what: string): string {
  const value = positionals[index];
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

async function run(
  deps: MerchantAdminDeps,
  positionals: string[],
  values: Record<string, string | boolean | undefined>,
) {
  const [resource, action] = positionals;
  const command = `${resource ?? ''} ${action ?? ''}`.trim();
  switch (command) {
    case 'merchants create': {
      const { merchant, tokenId, apiToken } = await createMerchant(
        deps,
        parsed(createMerchantRequest, settingsFrom(values)),
      );
      return { ...merchantView(merchant), tokenId, apiToken };
    }
    case 'merchants get':
      return merchantView(await getMerchant(deps, argument(positionals, 2, 'merchantId')));
    case 'merchants update': {
      const id = argument(positionals, 2, 'merchantId');
      return merchantView(
        await updateMerchant(deps, id, parsed(updateMerchantRequest, settingsFrom(values))),
      );
    }
    case 'tokens issue': {
      const token = await issueApiToken(deps, argument(positionals, 2, 'merchantId'));
      return { ...token, createdAt: token.createdAt.toISOString() };
    }
    case 'tokens revoke': {
      const merchantId = argument(positionals, 2, 'merchantId');
      const tokenId = argument(positionals, 3, 'tokenId');
      await revokeApiToken(deps, merchantId, tokenId);
      return { tokenId, revoked: true };
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'no command given');
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Runs one command; resolves to the exit code (0 done, 1 not found or failed, 2 usage or invalid input). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let args: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    args = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.values.help || args.positionals.length === 0) {
    io.stdout(`${USAGE}\n`);
    return args.values.help ? 0 : 2;
  }
  // Ids are UUIDs; anything else names nothing (and must not reach a uuid column).
  const ids = args.positionals.slice(2);
  if (ids.some((id) => !UUID.test(id))) {
    io.stderr('not found: ids are UUIDs\n');
    return 1;
  }
  const url = loadCliConfig(io.env).DATABASE_URL;
  if (!url) {
    io.stderr('DATABASE_URL is not set: the CLI works on the gateway database (postgres://...)\n');
    return 2;
  }
  const database = openDatabase({ url, max: 1 });
  try {
    // Idempotent, and lets an operator set up a fresh database with the first merchant.
    if (gatewayService.database) await database.migrate(gatewayService.database);
    const result = await run(
      { merchants: postgresMerchantStore(database.db), clock: systemClock },
      args.positionals,
      args.values,
    );
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof InvalidMerchantSettings) {
      io.stderr(`invalid settings:\n  ${error.field}: ${error.reason}\n`);
      return 2;
    }
    if (error instanceof MerchantNotFound) {
      io.stderr(`not found: Merchant ${error.merchantId} not found\n`);
      return 1;
    }
    if (error instanceof ApiTokenNotFound) {
      io.stderr(`not found: API token ${error.tokenId} not found\n`);
      return 1;
    }
    io.stderr(`failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

if (typeof require !== 'undefined' && require.main === module) {
  runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  }).then((code) => process.exit(code));
}
