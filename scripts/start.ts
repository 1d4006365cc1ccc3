// `npm start`. Without DATABASE_URL/AMQP_URL: every service in this process on embedded PostgreSQL
// (PGlite, kept in DATA_DIR, default ./.data) and the in-process bus. With both set: each service as its
// own process against them. With only one of them set it refuses to start. `npm start` runs it compiled
// (`dist/start.js`, built by scripts/build.mjs) in the process of scripts/bootstrap.mjs.
import '@payrail/observability/register';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createDatabaseIfMissing } from '@payrail/db';
import { DEMO_MERCHANT } from '@payrail/gateway';
import { createLogger } from '@payrail/observability';
import { runEmbedded, type ServiceName, signalReady, systemClock } from '@payrail/runtime';
import { portVariable, servicePorts, startProcesses } from './processes';
import { allServices } from './services';

const root = path.resolve(__dirname, '..');

/** A start that cannot go on for a reason the user can fix: printed as one line, exit code 2. */
class StartRefused extends Error {}

interface Banner {
  mode: string;
  gatewayUrl: string;
  /** Where the pay page's login codes go: a line of the banner. */
  loginCodes: string;
  /** The processor sandbox's own origin (its card forms are loaded by browsers). */
  sandboxUrl: string | undefined;
  demoToken: string;
  /** Undefined when the operator gave ADMIN_TOKEN: it is theirs, and not printed. */
  adminToken: string | undefined;
}

function banner({ mode, gatewayUrl, loginCodes, sandboxUrl, demoToken, adminToken }: Banner) {
  const lines = [
    '',
    `payrail is ready (${mode})`,
    `  gateway:         ${gatewayUrl}`,
    `  demo merchant:   ${DEMO_MERCHANT.merchantId}`,
    `  demo Api-Token:  ${demoToken}  (its only live token: the previous start's is revoked)`,
    `  ADMIN_TOKEN:     ${adminToken ?? 'yours, from the environment'}  (Authorization: Bearer, for /admin/*)`,
    ...(sandboxUrl ? [`  processor sandbox: ${sandboxUrl} (test cards, state in memory)`] : []),
    `  login codes:     ${loginCodes}`,
    `  console:         ${gatewayUrl}/console  (its people are invited by mail: POST /admin/merchants/{id}/users, POST /admin/operators)`,
    '',
    '  try:',
    `  curl -s -X POST ${gatewayUrl}/api/saleitems/add -H 'Api-Token: ${demoToken}' -H 'Content-Type: application/json' \\`,
    `    -d '{"label":"Gym membership","amount":150000,"handleValue":"ana@example.com","handleLabel":"Ana","singlePayment":true,"creditAndDebitCard":true,"recurrentPayment":false}'`,
    '',
    '  Ctrl-C (SIGINT) or SIGTERM stops every service.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  // The compiled start's loader saves its code cache now.
  signalReady();
}

/**
 * The local internal secret (embedded system, or the processes of `npm start`) lives beside the data,
 * so what was sealed with it (stored idempotent responses) can still be read after a restart.
 */
function embeddedSecret(dataDir: string, name = 'internal-secret'): string {
  const file = path.join(dataDir, name);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

function portInUse(name: ServiceName, port: number): StartRefused {
  const change =
    name === 'gateway'
      ? 'set PORT to another port'
      : `set ${portVariable(name)} (or PORT, which moves every service) to another port`;
  return new StartRefused(`port ${port} (${name}) is already in use, maybe by another payrail: ${change}`);
}

/**
 * PGlite must not be opened by two processes at once: the first start holds `DATA_DIR/start.pid` until
 * it stops; a lock left by a process that no longer runs is taken over.
 */
function lockDataDir(dataDir: string): void {
  const lock = path.join(dataDir, 'start.pid');
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(lock, 'utf8'));
    if (holder && holder !== process.pid && isRunning(holder))
      throw new StartRefused(
        `DATA_DIR ${dataDir} is in use by another payrail (process ${holder}): stop it, or set DATA_DIR to another folder`,
      );
    writeFileSync(lock, String(process.pid));
  }
  process.on('exit', () => {
    if (existsSync(lock) && readFileSync(lock, 'utf8') === String(process.pid)) rmSync(lock);
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '0.0.0.0', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Checked before anything is opened: a second start on the same port must not touch the first one's
 * embedded databases, and says what to change rather than failing later with a stack trace.
 */
async function requireFreePorts(ports: Map<ServiceName, number>): Promise<void> {
  // The gateway first: its port is the one a user chose.
  const gatewayFirst = [...ports].sort(([a], [b]) => Number(b === 'gateway') - Number(a === 'gateway'));
  for (const [name, port] of gatewayFirst) {
    if (!(await portIsFree(port))) throw portInUse(name, port);
  }
}

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const parsed = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: parsed.hostname, port: Number(parsed.port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(3000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Which of the two URLs the infrastructure mode needs is missing; undefined when both or none are set. */
/**
 * The development mailbox, as links and the gateway decide it (`mailSetup` of libs/mail): on when
 * `DEV_MAILBOX` says so, or when neither it nor `SMTP_URL` is set; never with `NODE_ENV=production`.
 */
function devMailboxOn(env: Record<string, string | undefined>): boolean {
  if (env.NODE_ENV === 'production') return false;
  if (env.DEV_MAILBOX !== undefined && env.DEV_MAILBOX !== '') return ['true', '1'].includes(env.DEV_MAILBOX);
  return !env.SMTP_URL;
}

/** The banner's line about login codes: where a developer reads them, or why customers cannot sign in. */
function loginCodesLine(env: Record<string, string | undefined>, gatewayUrl: string): string {
  const mailbox = devMailboxOn(env);
  if (env.SMTP_URL)
    return mailbox ? `mailed (SMTP_URL), copies at ${gatewayUrl}/dev/mailbox` : 'mailed (SMTP_URL)';
  if (mailbox) return `not mailed: read them at ${gatewayUrl}/dev/mailbox (set SMTP_URL to mail them)`;
  return 'NOT SENT: customers cannot sign in on the pay page (set SMTP_URL, or DEV_MAILBOX=true outside production)';
}

function missingInfrastructureUrl(env: Record<string, string | undefined>): string | undefined {
  if (env.DATABASE_URL && !env.AMQP_URL) return 'AMQP_URL';
  if (env.AMQP_URL && !env.DATABASE_URL) return 'DATABASE_URL';
  return undefined;
}

/**
 * Stops on the first SIGINT or SIGTERM, also one that comes while still starting (then as soon as the
 * system is up); more of them while stopping (a terminal's Ctrl-C reaches every process of the group)
 * change nothing. A stop that hangs ends by force.
 */
function stopOnSignals(graceMs = 30_000): { started(stop: () => Promise<void>): void } {
  let stopSystem: (() => Promise<void>) | undefined;
  let requested = false;
  const run = () => {
    if (!stopSystem) return;
    setTimeout(() => process.exit(1), graceMs).unref();
    stopSystem().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  const handler = () => {
    if (requested) return;
    requested = true;
    run();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    started(stop) {
      stopSystem = stop;
      if (requested) run();
    },
  };
}

async function main() {
  const signals = stopOnSignals();
  const missing = missingInfrastructureUrl(process.env);
  if (missing) {
    const given = missing === 'AMQP_URL' ? 'DATABASE_URL' : 'AMQP_URL';
    throw new StartRefused(
      `${given} is set but ${missing} is not: set both to run one process per service on PostgreSQL and RabbitMQ, or neither for the embedded mode`,
    );
  }
  const demoToken = process.env.DEMO_API_TOKEN || randomUUID();
  const port = Number(process.env.PORT || 3000);
  const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  const adminToken = process.env.ADMIN_TOKEN || randomUUID();
  const printedAdminToken = process.env.ADMIN_TOKEN ? undefined : adminToken;
  const env: Record<string, string | undefined> = {
    ...process.env,
    DEMO_API_TOKEN: demoToken,
    PUBLIC_BASE_URL: publicBaseUrl,
    ADMIN_TOKEN: adminToken,
  };
  // `npm start` is a developer's system in both modes: without SMTP_URL, login codes go to the development
  // mailbox, as the embedded system does by itself (links started alone keeps it off unless asked).
  if (devMailboxOn(env)) env.DEV_MAILBOX = 'true';

  const databaseUrl = process.env.DATABASE_URL;
  const amqpUrl = process.env.AMQP_URL;
  if (databaseUrl && amqpUrl) {
    await requireFreePorts(servicePorts(env, port));
    if (!(await reachable(amqpUrl, 5672))) throw new StartRefused(`RabbitMQ does not answer at AMQP_URL`);
    try {
      if (await createDatabaseIfMissing(databaseUrl))
        process.stdout.write(`[start] created database ${new URL(databaseUrl).pathname.slice(1)}\n`);
    } catch (error) {
      throw new StartRefused(`PostgreSQL at DATABASE_URL refused: ${(error as Error).message}`);
    }
    // Services started as processes refuse the well-known development secret; give them this
    // checkout's own (kept in DATA_DIR) unless one is set.
    const secretDir = path.resolve(process.env.DATA_DIR ?? path.join(root, '.data'));
    mkdirSync(secretDir, { recursive: true });
    const internalSecret = process.env.INTERNAL_SECRET || embeddedSecret(secretDir);
    // Webhook signing secrets and receiver credentials are sealed with a key of this checkout's too.
    const webhookKey =
      process.env.WEBHOOK_ENCRYPTION_KEY || embeddedSecret(secretDir, 'webhook-encryption-key');
    // The services' compiled bundles, built with this one by scripts/bootstrap.mjs.
    const system = await startProcesses({
      root,
      env: { ...env, INTERNAL_SECRET: internalSecret, WEBHOOK_ENCRYPTION_KEY: webhookKey },
      port,
      compiled: true,
    });
    signals.started(() => system.stop());
    banner({
      mode: 'one process per service, PostgreSQL and RabbitMQ',
      gatewayUrl: `http://localhost:${port}`,
      loginCodes: loginCodesLine(env, `http://localhost:${port}`),
      sandboxUrl: system.urls['processor-sandbox'],
      demoToken,
      adminToken: printedAdminToken,
    });
    return;
  }

  // Embedded, the gateway listens, and so do services that need their own origin (the sandbox).
  const embeddedPorts = new Map<ServiceName, number>([['gateway', port]]);
  for (const definition of allServices)
    if (definition.embeddedListener)
      embeddedPorts.set(definition.name, definition.embeddedListener.port(env, port));
  await requireFreePorts(embeddedPorts);
  const dataDir = path.resolve(process.env.DATA_DIR ?? path.join(root, '.data'));
  mkdirSync(dataDir, { recursive: true });
  lockDataDir(dataDir);
  const logger = createLogger('payrail', process.env.LOG_LEVEL ?? 'warn');
  process.stdout.write(`[start] embedded mode: every service in this process, data in ${dataDir}\n`);
  const system = await runEmbedded(allServices, {
    dataDir,
    port,
    internalSecret: process.env.INTERNAL_SECRET ?? embeddedSecret(dataDir),
    env: {
      ...env,
      WEBHOOK_ENCRYPTION_KEY:
        process.env.WEBHOOK_ENCRYPTION_KEY || embeddedSecret(dataDir, 'webhook-encryption-key'),
      // A machine with only Node: receivers under test usually run on it (localhost) too.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS || 'true',
    },
    logger,
    clock: systemClock,
  }).catch((error) => {
    // Taken between the check above and the gateway's listen.
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const taken = (error as { port?: number }).port ?? port;
    const name = [...embeddedPorts].find(([, candidate]) => candidate === taken)?.[0] ?? 'gateway';
    throw portInUse(name, taken);
  });
  signals.started(() => system.shutdown());
  const sandboxListener = system.listeners.get('processor-sandbox');
  banner({
    mode: `embedded, data in ${dataDir}`,
    gatewayUrl: `http://localhost:${system.gateway.port}`,
    loginCodes: loginCodesLine(env, `http://localhost:${system.gateway.port}`),
    sandboxUrl: sandboxListener ? `http://localhost:${sandboxListener.port}` : undefined,
    demoToken,
    adminToken: printedAdminToken,
  });
}

main().catch((error) => {
  if (error instanceof StartRefused) {
    process.stderr.write(`payrail did not start: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`payrail failed to start: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
