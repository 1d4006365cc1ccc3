import { describe, expect, it } from 'vitest';
import { ChannelAcks } from '../src/rabbitmq/channel-acks';

/** A channel that writes down each ack as `tag` or `≤tag` (multiple). */
function recordingChannel() {
  const sent: string[] = [];
  return {
    sent,
    ack(message: { fields: { deliveryTag: number } }, allUpTo?: boolean) {
      sent.push(`${allUpTo ? '≤' : ''}${message.fields.deliveryTag}`);
    },
  };
}

function acksOf(channel: ReturnType<typeof recordingChannel>) {
  const failures: number[][] = [];
  return { acks: new ChannelAcks(channel, (_error, tags) => failures.push(tags)), failures };
}

describe('ChannelAcks', () => {
  it('sends the acks of one turn as one multiple ack when nothing below them is still handled', () => {
    const channel = recordingChannel();
    const { acks } = acksOf(channel);
    for (let tag = 1; tag <= 5; tag += 1) acks.delivered(tag);
    for (const tag of [3, 1, 5, 2, 4]) acks.ack(tag);
    acks.flush();
    expect(channel.sent).toEqual(['≤5']);
  });

  it('never covers a delivery still being handled: the acks above it go one by one', () => {
    const channel = recordingChannel();
    const { acks } = acksOf(channel);
    for (let tag = 1; tag <= 5; tag += 1) acks.delivered(tag);
    for (const tag of [1, 3, 4, 5]) acks.ack(tag);
    acks.flush();
    // 2 is still being handled: a `≤5` would ack it, and a crash now would lose it.
    expect(channel.sent).toEqual(['1', '3', '4', '5']);
    acks.ack(2);
    acks.flush();
    expect(channel.sent).toEqual(['1', '3', '4', '5', '2']);
  });

  it('a nacked delivery is no longer outstanding: the acks around it go together', () => {
    const channel = recordingChannel();
    const { acks } = acksOf(channel);
    for (let tag = 1; tag <= 4; tag += 1) acks.delivered(tag);
    acks.released(2);
    for (const tag of [1, 3, 4]) acks.ack(tag);
    acks.flush();
    expect(channel.sent).toEqual(['≤4']);
  });

  it('flushes by itself at the end of the turn, once, and reports acks a closed channel refused', async () => {
    const channel = recordingChannel();
    const { acks } = acksOf(channel);
    acks.delivered(7);
    acks.delivered(8);
    acks.ack(7);
    acks.ack(8);
    expect(channel.sent).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(channel.sent).toEqual(['≤8']);

    const closed = new ChannelAcks(
      {
        ack() {
          throw new Error('Channel closed');
        },
      },
      (_error, tags) => refused.push(...tags),
    );
    const refused: number[] = [];
    closed.delivered(1);
    closed.ack(1);
    closed.flush();
    expect(refused).toEqual([1]);
  });
});
