#!/usr/bin/env node
// Entry point of `npm start`, `npm test` and `npm run migrate` on a fresh clone with only Node and npm:
// makes sure the pinned pnpm and the locked dependencies are there, then runs the command. `start` runs
// compiled code, as the images do: it builds what changed (scripts/build.mjs), then runs `dist/start.js`
// in this process. The others run their TypeScript through tsx, in a child process.
import { spawnSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PNPM_VERSION = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).packageManager.split(
  '@',
)[1];
const commands = {
  start: 'dist/start.js', // built from scripts/start.ts, run in this process (below)
  test: 'scripts/test.ts',
  migrate: 'scripts/migrate.ts',
  'lint-openapi': 'scripts/lint-openapi.ts',
  build: 'scripts/build.mjs',
  'bench-billing': 'bench/billing.bench.ts',
  'bench-bulk': 'services/subscriptions/bench/bulk-modify.bench.ts',
  'bench-console': 'bench/console.bench.ts',
  'bench-links': 'bench/links.bench.ts',
  'bench-payments': 'bench/payments.bench.ts',
  'bench-start': 'bench/start.bench.ts',
  'bench-pay-page': 'bench/pay-page.bench.ts',
  'bench-webhooks': 'bench/webhooks.bench.ts',
  admin: 'services/gateway/src/cli.ts',
  'chaos-billing': 'scripts/chaos-billing.ts',
  soak: 'bench/soak.bench.ts',
};

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`Node ${process.versions.node} is too old: Node 20.19 or newer is needed.`);
  process.exit(1);
}

function pnpmCommand() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell: process.platform === 'win32' });
  if (probe.status === 0 && probe.stdout.trim().split('.')[0] === PNPM_VERSION.split('.')[0]) return ['pnpm'];
  // No matching pnpm on the PATH: run the pinned one through npx (fetched once into npm's cache).
  return ['npx', '--yes', `pnpm@${PNPM_VERSION}`];
}

function ensureDependencies() {
  const lockfile = path.join(root, 'pnpm-lock.yaml');
  const marker = path.join(root, 'node_modules', '.payrail-installed');
  const lockHash = createHash('sha256').update(readFileSync(lockfile)).digest('hex');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === lockHash) return;
  console.log('[setup] installing dependencies from pnpm-lock.yaml (first run only) ...');
  const [cmd, ...args] = pnpmCommand();
  const result = spawnSync(cmd, [...args, 'install', '--frozen-lockfile', '--reporter=append-only'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, CI: process.env.CI ?? 'true' },
  });
  if (result.status !== 0) {
    console.error('[setup] dependency installation failed');
    process.exit(result.status ?? 1);
  }
  writeFileSync(marker, lockHash);
}

const name = process.argv[2];
const script = commands[name];
if (!script) {
  console.error(`usage: node scripts/bootstrap.mjs ${Object.keys(commands).join('|')}`);
  process.exit(2);
}
/**
 * `npm start` runs this under `sh -c`, and a SIGTERM to npm ends that shell without passing it on: when
 * the process that started this one is gone, `stop` as if it had been signalled.
 */
function whenParentGoes(stop) {
  const parent = process.ppid;
  const watchParent = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watchParent);
    stop();
  }, 500);
  watchParent.unref();
}

ensureDependencies();
if (name === 'start') {
  // Compiled, in this very process: no second Node process (some 40 MB) between npm and the system, and
  // a signal to this one reaches the system's own handlers.
  const { buildAndSay } = await import('./build.mjs');
  await buildAndSay({ quiet: true });
  process.chdir(root);
  whenParentGoes(() => process.kill(process.pid, 'SIGTERM'));
  createRequire(import.meta.url)(path.join(root, 'dist', 'start.js'));
} else {
  // `node --import tsx` rather than the tsx binary: one process fewer between this one and the command,
  // so a signal forwarded from here reaches the command itself.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, script), ...process.argv.slice(3)],
    { cwd: root, stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  whenParentGoes(() => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
