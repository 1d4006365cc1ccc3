/**
 * Batch consuming, beside the per-message path: a handler that gathers the deliveries a bus hands it
 * (up to `maxBatch`, for at most `gatherMs` after the first) and handles them together, e.g. in one
 * transaction. It sits between the bus and the work, so both adapters (RabbitMQ and in-process) run it
 * unchanged: each delivery is still settled on its own, after the batch's work resolved (after commit),
 * and a failed delivery goes through the bus's retry and dead-letter path exactly as a single one would.
 *
 * When a batch fails, each of its messages is handled again on its own (`handleOne`), so one poison
 * message fails alone and the others go through.
 */
import type { DeliveredMessage, MessageHandler } from './bus';

export interface BatchingOptions {
  /** Most messages handled at once. */
  maxBatch: number;
  /** How long the first message of a batch waits for more. */
  gatherMs: number;
  /** Handles the batch; resolving means every message of it is done (acked by the bus). */
  handleBatch: (messages: DeliveredMessage[]) => Promise<void>;
  /** Handles one message on its own: a batch of one, and each message of a batch that failed. */
  handleOne: MessageHandler;
  /**
   * Keeps the delivery order: a batch starts only after the one before it settled, and the messages of
   * a failed batch are handled again one after the other. For a consumer that used prefetch 1 for its
   * order; without it, a batch can run while the previous one is still being handled.
   */
  ordered?: boolean;
}

/** What became of one message of a batch: handled, or the error its bus should retry it for. */
type Outcome = { ok: true } | { ok: false; error: unknown };

const handled: Outcome = { ok: true };

export function batchingHandler(options: BatchingOptions): MessageHandler {
  /** The batch being handled (ordered only): the next one waits for it. */
  let previous: Promise<unknown> = Promise.resolve();
  const one = (message: DeliveredMessage): Promise<Outcome> =>
    options.handleOne(message).then(
      () => handled,
      (error: unknown) => ({ ok: false, error }),
    );

  // Never rejects: each message's outcome is its own.
  async function handle(batch: DeliveredMessage[]): Promise<Outcome[]> {
    if (batch.length === 1) return [await one(batch[0] as DeliveredMessage)];
    try {
      await options.handleBatch(batch);
      return batch.map(() => handled);
    } catch {
      // Nothing of the batch was kept (one transaction): each message on its own, so only a failing
      // one is retried (and in the end dead-lettered) by the bus.
      if (!options.ordered) return Promise.all(batch.map(one));
      const outcomes: Outcome[] = [];
      for (const message of batch) outcomes.push(await one(message));
      return outcomes;
    }
  }

  const gathered = gatherCalls<DeliveredMessage, Outcome>({
    maxBatch: options.maxBatch,
    gatherMs: options.gatherMs,
    run: (batch) => {
      if (!options.ordered) return handle(batch);
      const done = previous.then(() => handle(batch));
      previous = done;
      return done;
    },
  });

  return async (message) => {
    const outcome = await gathered(message);
    if (!outcome.ok) throw outcome.error;
  };
}

/**
 * The prefetch a batching consumer needs: room for one batch being handled while the next gathers.
 * Give it as the subscription's `prefetch`.
 */
export function batchPrefetch(maxBatch: number): number {
  return 2 * maxBatch;
}

export interface GatheredCallsOptions<T, R> {
  /** Most calls answered by one `run`. */
  maxBatch: number;
  /** How long the first call of a batch waits for more. */
  gatherMs: number;
  /** Answers a batch: one result per item, in the items' order. */
  run: (items: T[]) => Promise<R[]>;
}

/**
 * Group commit for calls that arrive one by one (each message's handler, each processor answer): a call
 * waits up to `gatherMs` for others, and one `run` answers them all, e.g. one statement instead of one per
 * call. Each call gets its own result; when `run` fails, every call of its batch is rejected with that
 * error, and the caller decides what to do alone (see processor-gateway's stored-card charges).
 */
export function gatherCalls<T, R>(options: GatheredCallsOptions<T, R>): (item: T) => Promise<R> {
  const { maxBatch, gatherMs } = options;
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error('maxBatch must be an integer >= 1');
  if (!Number.isFinite(gatherMs) || gatherMs < 0) throw new Error('gatherMs must be >= 0');
  let gathering: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  let timer: NodeJS.Timeout | null = null;

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = gathering;
    gathering = [];
    if (batch.length === 0) return;
    let answered: Promise<R[]>;
    try {
      answered = options.run(batch.map((call) => call.item));
    } catch (error) {
      answered = Promise.reject(error);
    }
    answered.then(
      (results) => {
        if (results.length !== batch.length) {
          const error = new Error(`a batch of ${batch.length} calls got ${results.length} results`);
          for (const call of batch) call.reject(error);
          return;
        }
        batch.forEach((call, index) => {
          call.resolve(results[index] as R);
        });
      },
      (error: unknown) => {
        for (const call of batch) call.reject(error);
      },
    );
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      gathering.push({ item, resolve, reject });
      if (gathering.length >= maxBatch) flush();
      else if (!timer) timer = setTimeout(flush, gatherMs);
    });
}
