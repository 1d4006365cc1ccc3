import amqp from 'amqplib';
import postgres from 'postgres';
import { testAmqpUrl, testPostgresUrl } from '@payrail/testing';
import { describe, expect, it } from 'vitest';
import { spawnTs } from '../bench/support';

// A bench stopped with Ctrl-C leaves nothing behind: `undoOnInterrupt` in bench/support.ts drops the
// database and broker names the bench took before the process ends.

interface Taken {
  database: string;
  exchange: string;
  queue: string;
}

async function brokerHas(url: string, check: (channel: amqp.Channel) => Promise<unknown>): Promise<boolean> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    return await check(channel).then(
      () => true,
      () => false,
    );
  } finally {
    await connection.close().catch(() => undefined);
  }
}

describe('an interrupted bench', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'on %s drops its database, exchange and queues, then ends',
    async (signal) => {
      const server = testPostgresUrl();
      const amqpUrl = testAmqpUrl();
      const { child, output } = spawnTs('test-e2e/fixtures/interrupted-bench.ts', {
        DATABASE_URL: server,
        AMQP_URL: amqpUrl,
      });
      const taken = await new Promise<Taken>((resolve, reject) => {
        child.stdout?.on('data', () => {
          const line = output
            .join('')
            .split('\n')
            .find((each) => each.startsWith('{'));
          if (line) resolve(JSON.parse(line) as Taken);
        });
        child.on('exit', (code) => reject(new Error(`ended early (${code}): ${output.join('')}`)));
      });
      const sql = postgres(server, { max: 1, onnotice: () => {} });
      try {
        const exists = async () =>
          (await sql`select 1 from pg_database where datname = ${taken.database}`).length === 1;
        expect(await exists()).toBe(true);
        expect(await brokerHas(amqpUrl, (channel) => channel.checkExchange(taken.exchange))).toBe(true);
        expect(await brokerHas(amqpUrl, (channel) => channel.checkQueue(taken.queue))).toBe(true);

        const ended = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
        child.kill(signal);
        expect(await ended).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(output.join('')).toContain(`${signal}: stopping the services`);
        expect(await exists()).toBe(false);
        expect(await brokerHas(amqpUrl, (channel) => channel.checkExchange(taken.exchange))).toBe(false);
        expect(await brokerHas(amqpUrl, (channel) => channel.checkQueue(taken.queue))).toBe(false);
      } finally {
        child.kill('SIGKILL');
        await sql.end();
      }
    },
  );
});
