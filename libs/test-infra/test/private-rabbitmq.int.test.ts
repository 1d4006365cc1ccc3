import amqp from 'amqplib';
import { describe, expect, it } from 'vitest';
import { startPrivateRabbitMq } from '../src/private-rabbitmq';

// A node of the test's own (never the shared broker): it starts, takes connections, cuts them on a
// restart and takes them again with its durable queues kept, and is gone after stop().
describe('a private RabbitMQ node', () => {
  it('starts, serves, restarts (stop_app/start_app) and stops', async () => {
    const broker = await startPrivateRabbitMq({ name: 'payrail-test' });
    try {
      expect(broker.url).not.toContain(':5672');
      const first = await amqp.connect(broker.url);
      const closed = new Promise((resolve) => first.once('close', resolve));
      first.on('error', () => {});
      const channel = await first.createChannel();
      await channel.assertQueue('kept', { durable: true });
      channel.sendToQueue('kept', Buffer.from('hello'), { persistent: true });
      await channel.close();

      await broker.restart();
      await closed;

      const second = await amqp.connect(broker.url);
      const again = await second.createChannel();
      const message = await again.get('kept', { noAck: true });
      expect(message ? message.content.toString() : 'nothing').toBe('hello');
      await second.close();
    } finally {
      await broker.stop();
    }
    await expect(amqp.connect(broker.url)).rejects.toThrow();
  }, 240_000);
});
