import { execFile, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './infra';

const run = promisify(execFile);

/** Where Debian installs RabbitMQ's own scripts (the ones /usr/sbin's wrapper runs as the rabbitmq user). */
const RABBITMQ_BIN = process.env.RABBITMQ_BIN ?? '/usr/lib/rabbitmq/bin';

/**
 * A RabbitMQ node of a test's own, for what must not be done to the shared broker (stopping it, cutting
 * every connection at once): its own node name, ports, data, logs and Erlang cookie in a temporary
 * directory; no plugins (no management listener on 15672). Only the machine's epmd is shared, as every
 * Erlang node on a host shares it.
 */
export interface PrivateRabbitMq {
  /** `amqp://guest:guest@127.0.0.1:<port>` */
  url: string;
  node: string;
  /** `rabbitmqctl stop_app` then `start_app`: every connection is cut, the queues (durable) stay. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRabbitMq(
  options: { name?: string; startTimeoutMs?: number } = {},
): Promise<PrivateRabbitMq> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'payrail-rabbitmq-'));
  const node = `${options.name ?? 'payrail-private'}-${process.pid}-${path.basename(dir).slice(-6)}@localhost`;
  const [amqpPort, distPort] = [await freePort(), await freePort()];
  // The machine's /etc/rabbitmq files name the shared node and its port: this node reads its own instead.
  await writeFile(path.join(dir, 'rabbitmq.conf'), `listeners.tcp.local = 127.0.0.1:${amqpPort}\n`);
  await writeFile(path.join(dir, 'rabbitmq-env.conf'), '');
  await writeFile(path.join(dir, 'enabled_plugins'), '[].\n');
  await writeFile(path.join(dir, '.erlang.cookie'), `PAYRAILPRIVATE${process.pid}${Date.now()}`);
  await chmod(path.join(dir, '.erlang.cookie'), 0o400);
  const env = {
    ...process.env,
    // The node and rabbitmqctl find the same cookie in this HOME.
    HOME: dir,
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(amqpPort),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(dir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_PID_FILE: path.join(dir, 'rabbitmq.pid'),
    RABBITMQ_SERVER_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
    ERL_EPMD_ADDRESS: '127.0.0.1',
  };
  const ctl = (args: string[], timeoutMs = 120_000) =>
    run(path.join(RABBITMQ_BIN, 'rabbitmqctl'), ['-n', node, ...args], {
      env,
      cwd: dir,
      timeout: timeoutMs,
    });
  const server = spawn(path.join(RABBITMQ_BIN, 'rabbitmq-server'), [], {
    env,
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  for (const stream of [server.stdout, server.stderr])
    stream?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await ctl(['stop'], 60_000).catch(() => {});
    if (server.exitCode === null && server.signalCode === null && server.pid) {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await rm(dir, { recursive: true, force: true });
  };
  // await_startup fails at once while the Erlang node is not up yet: ask again until it is, or until
  // the server has exited.
  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  for (;;) {
    try {
      await ctl(['await_startup', '--timeout', '30'], 60_000);
      break;
    } catch (error) {
      if (Date.now() > deadline || server.exitCode !== null) {
        await stop();
        throw new Error(`the private RabbitMQ node ${node} did not start: ${String(error)}\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return {
    url: `amqp://guest:guest@127.0.0.1:${amqpPort}`,
    node,
    async restart() {
      await ctl(['stop_app']);
      await ctl(['start_app']);
    },
    stop,
  };
}
