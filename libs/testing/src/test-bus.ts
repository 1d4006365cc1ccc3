import { createRabbitMqBus, type MessageBus } from '@payrail/messaging';
import { deleteBrokerTopology, testAmqpUrl, uniqueName } from '@payrail/test-infra';

/** A RabbitMQ bus of one test file's own, that can take away everything it declared. */
export interface TestRabbitMqBus extends MessageBus {
  readonly exchange: string;
  readonly queuePrefix: string;
  /** The consumers subscribed through it so far (the service's and the test's own). */
  consumers(): string[];
  /**
   * Closes the bus, then deletes its exchange and each subscribed consumer's main, retry and dead-letter
   * queues from the shared broker. The list is what was subscribed, not one kept by hand: a consumer added to
   * the service later is deleted too.
   */
  removeTopology(): Promise<void>;
}

/** A bus on the shared test RabbitMQ with an exchange and queue prefix named after `name` and unique. */
export function testRabbitMqBus(name: string): TestRabbitMqBus {
  const exchange = uniqueName(name);
  const queuePrefix = `${uniqueName(name)}.`;
  const bus = createRabbitMqBus({ url: testAmqpUrl(), exchange, queuePrefix });
  const subscribed = new Set<string>();
  return {
    exchange,
    queuePrefix,
    start: () => bus.start(),
    publish: (message) => bus.publish(message),
    async subscribe(subscription) {
      subscribed.add(subscription.consumer);
      await bus.subscribe(subscription);
    },
    stopConsuming: () => bus.stopConsuming(),
    close: () => bus.close(),
    isReady: () => bus.isReady(),
    drainDeadLetters: (consumer) => bus.drainDeadLetters(consumer),
    consumers: () => [...subscribed],
    async removeTopology() {
      await bus.close();
      await deleteBrokerTopology(
        testAmqpUrl(),
        exchange,
        [...subscribed].map((consumer) => `${queuePrefix}${consumer}`),
      );
    },
  };
}
