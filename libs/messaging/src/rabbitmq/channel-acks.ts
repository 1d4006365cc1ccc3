/**
 * The acks of one consumer channel, sent together. A batch's deliveries are settled in the same turn of
 * the event loop, after its commit; sent one by one, that is one frame to encode, one for the broker to
 * parse and one request to its queue per message. Here the acks of one turn go out at the end of it:
 * one ack with `multiple` up to the highest tag below every delivery still being handled (the broker
 * then acks every outstanding delivery up to it, and no other is outstanding there), and the rest one by
 * one. A delivery still being handled is never acked by another's `multiple`, so a crash or a dropped
 * connection still hands it out again.
 */

/** The part of an amqplib channel the acks need. */
export interface AckChannel {
  ack(message: { fields: { deliveryTag: number } }, allUpTo?: boolean): void;
}

export class ChannelAcks {
  /** Tags delivered and not settled yet (handled, or waiting to be). */
  private readonly handling = new Set<number>();
  private ready: number[] = [];
  private scheduled = false;

  constructor(
    private readonly channel: AckChannel,
    /** Told when an ack could not be sent (the channel closed): the broker redelivers those messages. */
    private readonly failed: (error: unknown, tags: number[]) => void,
  ) {}

  delivered(tag: number): void {
    this.handling.add(tag);
  }

  /** Settled otherwise (a nack sent by the caller): no longer outstanding, never in a `multiple` ack. */
  released(tag: number): void {
    this.handling.delete(tag);
  }

  /** Acks `tag` at the end of this turn of the event loop, with the others settled in it. */
  ack(tag: number): void {
    this.handling.delete(tag);
    this.ready.push(tag);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Sends the acks waiting; `ack` schedules it, tests call it. */
  flush(): void {
    this.scheduled = false;
    const tags = this.ready;
    this.ready = [];
    if (tags.length === 0) return;
    let lowestHandled = Number.POSITIVE_INFINITY;
    for (const tag of this.handling) if (tag < lowestHandled) lowestHandled = tag;
    let upTo = -1;
    let below = 0;
    const alone: number[] = [];
    for (const tag of tags) {
      if (tag < lowestHandled) {
        upTo = Math.max(upTo, tag);
        below += 1;
      } else alone.push(tag);
    }
    try {
      if (upTo >= 0) this.channel.ack({ fields: { deliveryTag: upTo } }, below > 1);
      for (const tag of alone) this.channel.ack({ fields: { deliveryTag: tag } });
    } catch (error) {
      this.failed(error, tags);
    }
  }
}
