import { Hono } from 'hono';
import { z } from 'zod';
import { type ProcessorA, ProcessorAError } from '../../application/processor-a';
import { PROCESSOR_A } from '../../application/processors';
import type { SandboxCore } from '../../application/sandbox-state';
import { sameToken, processorATokens } from '../../application/signatures';
import { processorFaults, readJsonBody, type SandboxContext, type SandboxEnv, sleep } from './sandbox-env';

// Processor A numbers: integers of up to 15 digits, sent as JSON numbers (digit strings accepted, without
// leading zeros, so that the token is computed over the same text on both sides).
const integerId = z
  .union([z.number().int().positive(), z.string().regex(/^[1-9]\d{0,14}$/, 'integer without leading zeros')])
  .transform((value, ctx) => {
    const text = String(value);
    if (text.length > 15 || (typeof value === 'number' && !Number.isSafeInteger(value))) {
      ctx.addIssue({ code: 'custom', message: 'at most 15 digits' });
      return z.NEVER;
    }
    return text;
  });
const amount = z.string().regex(/^\d{1,13}\.\d{2}$/, 'amount like "150000.00"');
const currency = z.enum(['PYG', 'USD']);
const url = z.string().min(1).max(2000);

const operations = {
  singleBuy: z.object({
    token: z.string(),
    shop_process_id: integerId,
    amount,
    currency,
    description: z.string().max(20).optional(),
    return_url: url,
    cancel_url: url,
    additional_data: z.unknown().optional(),
  }),
  bySpid: z.object({ token: z.string(), shop_process_id: integerId }),
  newCard: z.object({
    token: z.string(),
    card_id: integerId,
    user_id: integerId,
    user_cell_phone: z.string().optional(),
    user_mail: z.string().optional(),
    return_url: url,
  }),
  tokenOnly: z.object({ token: z.string() }),
  charge: z.object({
    token: z.string(),
    shop_process_id: integerId,
    amount,
    currency,
    alias_token: z.string().min(1),
    number_of_payments: z.number().int().positive().optional(),
    description: z.string().max(20).optional(),
    additional_data: z.unknown().optional(),
  }),
  deleteCard: z.object({ token: z.string(), alias_token: z.string().min(1) }),
};

const errorBody = (key: string, dsc: string) => ({
  status: 'error',
  messages: [{ key, level: 'error', dsc }],
});

/** PROCESSOR_A's API under `/vpos/api/0.3/`: `{public_key, operation: {token, ...}}`, MD5 tokens. */
export function processorARoutes(core: SandboxCore, processor: ProcessorA) {
  const router = new Hono<SandboxEnv>();
  const settings = () => core.settings.processorA;

  router.use(
    '/vpos/api/*',
    processorFaults(core.faults, PROCESSOR_A, () => ({
      body: errorBody('PosCommunicationError', 'Servicio no disponible temporalmente'),
    })),
  );
  router.onError((error, c) => {
    if (error instanceof ProcessorAError) {
      return c.json(errorBody(error.key, error.dsc), error.httpStatus);
    }
    throw error;
  });

  /** Parses the envelope and the operation, then checks the public key and the token. */
  async function signed<T extends z.ZodType>(
    c: SandboxContext,
    schema: T,
    expectedToken: (operation: z.output<T>) => string,
  ): Promise<z.output<T>> {
    const body = (await readJsonBody(c)) as { public_key?: unknown; operation?: unknown } | undefined;
    if (!body || typeof body !== 'object' || typeof body.operation !== 'object') {
      throw new ProcessorAError(400, 'InvalidJsonError', 'Se esperaba {public_key, operation}');
    }
    if (body.public_key !== settings().publicKey) {
      throw new ProcessorAError(401, 'InvalidPublicKeyError', 'Clave publica invalida');
    }
    const parsed = schema.safeParse(body.operation);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ProcessorAError(400, 'InvalidJsonError', `${issue?.path.join('.')}: ${issue?.message}`);
    }
    const operation = parsed.data as z.output<T> & { token: string };
    if (!sameToken(expectedToken(operation), operation.token)) {
      throw new ProcessorAError(401, 'InvalidTokenError', 'Token invalido');
    }
    return operation;
  }

  const pathUserId = (value: string) => {
    if (!/^[1-9]\d{0,14}$/.test(value))
      throw new ProcessorAError(400, 'InvalidJsonError', 'user_id invalido');
    return value;
  };

  router.post('/vpos/api/0.3/single_buy', async (c) => {
    const op = await signed(c, operations.singleBuy, (o) =>
      processorATokens.singleBuy(settings().privateKey, o.shop_process_id, o.amount, o.currency),
    );
    const { processId } = processor.singleBuy({
      spid: op.shop_process_id,
      amount: op.amount,
      currency: op.currency,
      returnUrl: op.return_url,
      cancelUrl: op.cancel_url,
    });
    return c.json({ status: 'success', process_id: processId });
  });

  router.post('/vpos/api/0.3/single_buy/confirmations', async (c) => {
    const op = await signed(c, operations.bySpid, (o) =>
      processorATokens.getConfirmation(settings().privateKey, o.shop_process_id),
    );
    return c.json({ status: 'success', confirmation: processor.getConfirmation(op.shop_process_id) });
  });

  router.post('/vpos/api/0.3/single_buy/rollback', async (c) => {
    const op = await signed(c, operations.bySpid, (o) =>
      processorATokens.rollback(settings().privateKey, o.shop_process_id),
    );
    processor.rollback(op.shop_process_id);
    return c.json({
      status: 'success',
      messages: [{ key: 'RollbackSuccessful', level: 'info', dsc: 'Rollback correcto.' }],
    });
  });

  router.post('/vpos/api/0.3/cards/new', async (c) => {
    const op = await signed(c, operations.newCard, (o) =>
      processorATokens.newCard(settings().privateKey, o.card_id, o.user_id),
    );
    const { processId } = processor.newCard({
      cardId: op.card_id,
      userId: op.user_id,
      returnUrl: op.return_url,
    });
    return c.json({ status: 'success', process_id: processId });
  });

  router.post('/vpos/api/0.3/users/:userId/cards', async (c) => {
    const userId = pathUserId(c.req.param('userId'));
    await signed(c, operations.tokenOnly, () => processorATokens.userCards(settings().privateKey, userId));
    return c.json({ status: 'success', cards: processor.listCards(userId) });
  });

  router.delete('/vpos/api/0.3/users/:userId/cards', async (c) => {
    const userId = pathUserId(c.req.param('userId'));
    const op = await signed(c, operations.deleteCard, (o) =>
      processorATokens.deleteCard(settings().privateKey, userId, o.alias_token),
    );
    processor.deleteCard(userId, op.alias_token);
    return c.json({ status: 'success' });
  });

  router.post('/vpos/api/0.3/charge', async (c) => {
    const op = await signed(c, operations.charge, (o) =>
      processorATokens.charge(settings().privateKey, o.shop_process_id, o.amount, o.currency, o.alias_token),
    );
    const result = await processor.charge({
      spid: op.shop_process_id,
      amount: op.amount,
      currency: op.currency,
      aliasToken: op.alias_token,
    });
    if (result.delayMs > 0) await sleep(result.delayMs);
    if (result.replyLost) c.set('replyLost', true);
    return c.json({ status: 'success', confirmation: result.confirmation });
  });

  return router;
}
