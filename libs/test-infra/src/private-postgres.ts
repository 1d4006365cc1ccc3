import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './infra';

const run = promisify(execFile);

/** Where Debian installs PostgreSQL's server programs (PG_BIN overrides it). */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL server of a run's own, for what must not be done to the shared one (a restart that cuts
 * every connection): `initdb` into a temporary directory, its own port, its socket in that directory,
 * trust authentication for `postgres` on 127.0.0.1. As root, the server runs as the `postgres` user
 * (initdb refuses root). Small settings: it serves one run.
 */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** `pg_ctl restart -m fast`: every connection is cut, the data stays. Resolves once it accepts again. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivatePostgres(
  options: { name?: string; maxConnections?: number } = {},
): Promise<PrivatePostgres> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `${options.name ?? 'payrail-postgres'}-`));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await chmod(dir, 0o777);
    await run('chown', ['postgres:postgres', dir]);
  }
  /** A server program, as `postgres` when this process is root. */
  const pg = (program: string, args: string[], timeoutMs = 120_000) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, program), ...args], {
          cwd: dir,
          timeout: timeoutMs,
        })
      : run(path.join(PG_BIN, program), args, { cwd: dir, timeout: timeoutMs });
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const settings = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    `max_connections = ${options.maxConnections ?? 200}`,
    'shared_buffers = 128MB',
    // A throw-away server: durability is not what a run measures, a restart is.
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
  ];
  await writeFile(path.join(data, 'postgresql.auto.conf'), `${settings.join('\n')}\n`);
  if (asRoot) await run('chown', ['postgres:postgres', path.join(data, 'postgresql.auto.conf')]);
  const log = path.join(dir, 'server.log');
  const ctl = (args: string[]) => pg('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '120', ...args]);
  await ctl(['start']);
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async restart() {
      await ctl(['restart', '-m', 'fast']);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await ctl(['stop', '-m', 'immediate']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
