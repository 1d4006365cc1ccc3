// `npm start`. Without DATABASE_URL/AMQP_URL: every service in this process on embedded PostgreSQL
// (PGlite, kept in DATA_DIR, default ./.data) and the in-process bus. With both set: each service as its
// own process against them.
import '@payrail/observability/register';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '@payrail/observability';
import { runEmbedded, systemClock } from '@payrail/runtime';
import { startProcesses } from './processes';
import { allServices } from './services';

const root = path.resolve(__dirname, '..');

function banner(gatewayUrl: string, token: string, mode: string) {
  const lines = [
    '',
    `payrail is ready (${mode})`,
    `  gateway:         ${gatewayUrl}`,
    `  demo Api-Token:  ${token}`,
    '',
    '  try:',
    `  curl -s -X POST ${gatewayUrl}/api/saleitems/add -H 'Api-Token: ${token}' -H 'Content-Type: application/json' \\`,
    `    -d '{"label":"Gym membership","amount":150000,"handleValue":"ana@example.com","handleLabel":"Ana","singlePayment":true,"creditAndDebitCard":true,"recurrentPayment":false}'`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * The local internal secret (embedded system, or the processes of `npm start`) lives beside the data, so what was sealed with it (stored
 * idempotent responses) can still be read after a restart.
 */
function embeddedSecret(dataDir: string): string {
  const file = path.join(dataDir, 'internal-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

async function main() {
  const demoToken = process.env.DEMO_API_TOKEN || randomUUID();
  const port = Number(process.env.PORT ?? 3000);
  const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  const adminToken = process.env.ADMIN_TOKEN || randomUUID();
  const env = {
    ...process.env,
    DEMO_API_TOKEN: demoToken,
    PUBLIC_BASE_URL: publicBaseUrl,
    ADMIN_TOKEN: adminToken,
  };

  if (process.env.DATABASE_URL && process.env.AMQP_URL) {
    // Services started as processes refuse the well-known development secret; give them this
    // checkout's own (kept in DATA_DIR) unless one is set.
    const secretDir = path.resolve(process.env.DATA_DIR ?? path.join(root, '.data'));
    mkdirSync(secretDir, { recursive: true });
    const internalSecret = process.env.INTERNAL_SECRET || embeddedSecret(secretDir);
    const system = await startProcesses({ root, env: { ...env, INTERNAL_SECRET: internalSecret }, port });
    banner(`http://localhost:${port}`, demoToken, 'one process per service, PostgreSQL and RabbitMQ');
    process.stdout.write(
      `  processor sandbox: ${system.urls['processor-sandbox']} (test cards, state in memory)\n\n`,
    );
    const stop = async () => {
      await system.stop();
      process.exit(0);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return;
  }

  const dataDir = path.resolve(process.env.DATA_DIR ?? path.join(root, '.data'));
  mkdirSync(dataDir, { recursive: true });
  const logger = createLogger('payrail', process.env.LOG_LEVEL ?? 'warn');
  process.stdout.write(`[start] embedded mode: every service in this process, data in ${dataDir}\n`);
  const system = await runEmbedded(allServices, {
    dataDir,
    port,
    internalSecret: process.env.INTERNAL_SECRET ?? embeddedSecret(dataDir),
    env,
    logger,
    clock: systemClock,
  });
  banner(`http://localhost:${system.gateway.port}`, demoToken, `embedded, data in ${dataDir}`);
  const sandbox = system.listeners.get('processor-sandbox');
  if (sandbox)
    process.stdout.write(
      `  processor sandbox: http://localhost:${sandbox.port} (test cards, state in memory)\n\n`,
    );
  if (!process.env.ADMIN_TOKEN) process.stdout.write(`  operator ADMIN_TOKEN: ${adminToken}\n\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    await system.shutdown();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  process.stderr.write(`payrail failed to start: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
