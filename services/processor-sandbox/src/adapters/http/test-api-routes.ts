import { Hono } from 'hono';
import { z } from 'zod';
import { FAULT_KINDS } from '../../application/faults';
import { type ProcessorA, ProcessorAError } from '../../application/processor-a';
import { type ProcessorB, ProcessorBError } from '../../application/processor-b';
import { parseProcessor } from '../../application/processors';
import type { SandboxCore } from '../../application/sandbox-state';
import { isResponseCode, type ResponseCode, readCard } from '../../domain/cards';
import { CardInputError } from '../../domain/errors';
import { readJsonBody, type SandboxContext, type SandboxEnv, sleep } from './sandbox-env';

const processorField = z.string().transform((value, ctx) => {
  const processor = parseProcessor(value);
  if (!processor) {
    ctx.addIssue({ code: 'custom', message: 'processor must be A or B' });
    return z.NEVER;
  }
  return processor;
});

const schemas = {
  ledgerPage: z.object({
    after: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().min(1).optional(),
  }),
  fault: z.object({
    processor: processorField,
    fault: z.enum(FAULT_KINDS),
    count: z.number().int().min(0).max(1000).default(1),
    seconds: z.number().min(0).max(600).optional(),
  }),
  outcome: z.object({
    last4: z.string().regex(/^\d{4}$/),
    codes: z.array(z.string().refine(isResponseCode, 'a code of 00 05 12 14 51 54 57 61 94 96')),
    processor: processorField.optional(),
  }),
  complete: z
    .object({
      processId: z.string().min(1).optional(),
      hash: z.string().min(1).optional(),
      cardNumber: z.string().min(1),
      expiry: z.string().optional(),
      cvv: z.string().optional(),
    })
    .refine((b) => Boolean(b.processId) !== Boolean(b.hash), 'give processId or hash'),
  clock: z
    .object({
      advanceSeconds: z.number().min(0).optional(),
      set: z.iso.datetime({ offset: true }).optional(),
    })
    .refine((b) => b.advanceSeconds !== undefined || b.set !== undefined, 'give advanceSeconds or set'),
  storedCards: z.object({
    cardNumber: z.string().min(1),
    cards: z.array(z.object({ userId: z.string().min(1), cardId: z.string().min(1) })).max(1_000_000),
  }),
  config: z.object({
    processorAWebhookUrl: z.string().url().optional(),
    processorBNotificationUrl: z.string().url().optional(),
    processorBReturnUrl: z.string().min(1).optional(),
  }),
};

type Parsed<T extends z.ZodType> = { ok: true; value: z.output<T> } | { ok: false; error: string };

async function parse<T extends z.ZodType>(c: SandboxContext, schema: T): Promise<Parsed<T>> {
  const parsed = schema.safeParse((await readJsonBody(c)) ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, error: `${issue?.path.join('.') || 'body'}: ${issue?.message}` };
}

/** The test API: what tests and demos use to see and steer the simulated processors. */
export function testApiRoutes(
  core: SandboxCore,
  processors: { a: ProcessorA; b: ProcessorB },
  control: { runDue(): Promise<void>; reset(): void },
) {
  const router = new Hono<SandboxEnv>();

  // `?after=<id>&limit=<n>`: a page (a benchmark's ledger has hundreds of thousands of entries); `next` is
  // the `after` of the next page, null at the end. Without them, every entry.
  router.get('/__sandbox/ledger', (c) => {
    const query = schemas.ledgerPage.safeParse(c.req.query());
    if (!query.success)
      return c.json({ error: 'after and limit must be whole numbers (limit 1 or more)' }, 400);
    const { after = 0, limit } = query.data;
    const entries = core.ledger.list(after, limit);
    const last = entries.at(-1);
    const more = last !== undefined && last.id < core.ledger.size;
    return c.json({ entries, total: core.ledger.size, next: more ? last.id : null });
  });

  router.get('/__sandbox/faults', (c) => c.json({ faults: core.faults.list() }));
  router.post('/__sandbox/faults', async (c) => {
    const body = await parse(c, schemas.fault);
    if (!body.ok) return c.json({ error: body.error }, 400);
    const { processor, fault, count, seconds } = body.value;
    core.faults.arm({ processor, fault, remaining: count, ...(seconds === undefined ? {} : { seconds }) });
    return c.json({ faults: core.faults.list() });
  });

  router.post('/__sandbox/outcomes', async (c) => {
    const body = await parse(c, schemas.outcome);
    if (!body.ok) return c.json({ error: body.error }, 400);
    core.outcomes.script({
      last4: body.value.last4,
      codes: body.value.codes as ResponseCode[],
      processor: body.value.processor,
    });
    return c.json({ ok: true });
  });

  router.post('/__sandbox/complete', async (c) => {
    const body = await parse(c, schemas.complete);
    if (!body.ok) return c.json({ error: body.error }, 400);
    const { processId, hash, cardNumber, expiry, cvv } = body.value;
    try {
      const card = readCard({ number: cardNumber, expiry, cvv }, core.clock.now());
      if (processId) {
        const process = processors.a.describeProcess(processId);
        if (!process) return c.json({ error: 'unknown processId' }, 404);
        const result =
          process.kind === 'payment'
            ? await processors.a.payHosted(processId, card)
            : processors.a.registerHosted(processId, card);
        if (result.delayMs > 0) await sleep(result.delayMs);
        return c.json({
          outcome: result.outcome,
          responseCode: result.responseCode,
          redirectUrl: result.redirectUrl,
        });
      }
      const key = hash as string;
      if (processors.b.describeOrder(key)) {
        const result = await processors.b.payHosted(key, card);
        if (result.delayMs > 0) await sleep(result.delayMs);
        return c.json({
          outcome: result.outcome,
          responseCode: result.responseCode,
          redirectUrl: result.redirectUrl,
        });
      }
      if (processors.b.hasCardForm(key)) {
        const result = processors.b.registerHosted(key, card);
        return c.json({ outcome: result.outcome, responseCode: null, redirectUrl: result.redirectUrl });
      }
      return c.json({ error: 'unknown hash' }, 404);
    } catch (error) {
      if (error instanceof CardInputError) return c.json({ error: error.message }, 400);
      if (error instanceof ProcessorAError) return c.json({ error: `${error.key}: ${error.dsc}` }, 400);
      if (error instanceof ProcessorBError) return c.json({ error: error.resultado }, 400);
      throw error;
    }
  });

  router.get('/__sandbox/webhooks', (c) => c.json({ deliveries: core.webhooks.entries() }));
  router.post('/__sandbox/webhooks/flush', async (c) => {
    await core.webhooks.flushHeld();
    return c.json({ ok: true });
  });

  const clockView = () => ({
    now: core.clock.now().toISOString(),
    offsetSeconds: core.clock.offsetSeconds(),
  });
  router.get('/__sandbox/clock', (c) => c.json(clockView()));
  router.post('/__sandbox/clock', async (c) => {
    const body = await parse(c, schemas.clock);
    if (!body.ok) return c.json({ error: body.error }, 400);
    if (body.value.set) core.clock.set(new Date(body.value.set));
    if (body.value.advanceSeconds) core.clock.advance(body.value.advanceSeconds * 1000);
    await control.runDue();
    return c.json(clockView());
  });

  router.post('/__sandbox/config', async (c) => {
    const body = await parse(c, schemas.config);
    if (!body.ok) return c.json({ error: body.error }, 400);
    const { processorAWebhookUrl, processorBNotificationUrl, processorBReturnUrl } = body.value;
    if (processorAWebhookUrl) core.settings.processorA.webhookUrl = processorAWebhookUrl;
    if (processorBNotificationUrl) core.settings.processorB.notificationUrl = processorBNotificationUrl;
    if (processorBReturnUrl) core.settings.processorB.returnUrlTemplate = processorBReturnUrl;
    return c.json({ ok: true });
  });

  // PROCESSOR_A's stored cards, to carry a benchmark's seeded customers over to a new sandbox: listed
  // without their numbers, and stored again with a test card's number given by the caller.
  router.get('/__sandbox/stored-cards', (c) => c.json({ cards: processors.a.storedCards() }));
  router.post('/__sandbox/stored-cards', async (c) => {
    const body = await parse(c, schemas.storedCards);
    if (!body.ok) return c.json({ error: body.error }, 400);
    try {
      const card = readCard({ number: body.value.cardNumber }, core.clock.now());
      return c.json({ restored: processors.a.restoreStoredCards(card, body.value.cards) });
    } catch (error) {
      if (error instanceof CardInputError) return c.json({ error: error.message }, 400);
      throw error;
    }
  });

  router.post('/__sandbox/reset', (c) => {
    control.reset();
    return c.json({ ok: true });
  });

  return router;
}
