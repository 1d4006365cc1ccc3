import { describe, expect, it } from 'vitest';
import { findPostgres, findRabbit } from '../src/global-setup';

// Port 1 on loopback: nothing listens there, so the connection is refused at once.
const closed = (scheme: string) => `${scheme}://127.0.0.1:1/x`;
const noDocker = async (): Promise<string> => {
  throw new Error('Could not find a working container runtime strategy');
};

describe('test infrastructure discovery', () => {
  it('takes the first reachable server', async () => {
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      expect(await findPostgres([], [undefined, closed('postgres'), url], noDocker)).toBe(url);
    } finally {
      server.close();
    }
  });

  it('falls back to testcontainers when nothing is reachable', async () => {
    expect(await findRabbit([], [closed('amqp')], async () => 'amqp://from-container')).toBe(
      'amqp://from-container',
    );
  });

  it('fails and says what to start when there is neither a server nor Docker', async () => {
    await expect(findPostgres([], [closed('postgres')], noDocker)).rejects.toThrow(
      /No PostgreSQL for the tests: set DATABASE_URL, start PostgreSQL on 127.0.0.1:5432.*\(testcontainers: Could not find a working container runtime strategy\)/,
    );
    await expect(findRabbit([], [closed('amqp')], noDocker)).rejects.toThrow(
      /No RabbitMQ for the tests: set AMQP_URL, start RabbitMQ on 127.0.0.1:5672/,
    );
  });
});
