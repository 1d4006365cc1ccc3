import amqp from 'amqplib';

/**
 * Deletes what a test declared on the shared RabbitMQ: its exchange and each consumer's main, retry and
 * dead-letter queues. Close the test's bus first, or it re-declares them.
 */
export async function deleteBrokerTopology(
  url: string,
  exchange: string,
  consumerQueues: string[],
): Promise<void> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    for (const queue of consumerQueues) {
      for (const name of [queue, `${queue}.retry`, `${queue}.dlq`]) await channel.deleteQueue(name);
    }
    await channel.deleteExchange(exchange);
    await channel.close();
  } finally {
    await connection.close();
  }
}
