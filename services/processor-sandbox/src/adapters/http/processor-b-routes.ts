import { Hono } from 'hono';
import { z } from 'zod';
import { type ProcessorB, ProcessorBError } from '../../application/processor-b';
import { PROCESSOR_B } from '../../application/processors';
import type { SandboxCore } from '../../application/sandbox-state';
import { processorBTokens, sameToken } from '../../application/signatures';
import { processorFaults, readJsonBody, type SandboxContext, type SandboxEnv } from './sandbox-env';

const failure = (resultado: string) => ({ respuesta: false, resultado });

const schemas = {
  start: z.object({
    token: z.string(),
    monto_total: z.number().int().positive(),
    id_pedido_comercio: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'alfanumérico'),
    tipo_pedido: z.string().optional(),
    descripcion_resumen: z.string().optional(),
    fecha_maxima_pago: z.string().optional(),
    forma_pago: z.union([z.number(), z.string()]).optional(),
    comprador: z.unknown().optional(),
    compras_items: z.array(z.unknown()).optional(),
  }),
  byOrder: z
    .object({
      token: z.string(),
      hash_pedido: z.string().optional(),
      id_pedido_comercio: z.string().optional(),
    })
    .refine((o) => o.hash_pedido || o.id_pedido_comercio, 'hash_pedido requerido'),
  reverse: z.object({ token: z.string(), hash_pedido: z.string().min(1) }),
  customer: z.object({
    token: z.string(),
    identificador: z.union([z.string().min(1), z.number()]).transform(String),
    nombre_apellido: z.string().optional(),
    email: z.string().optional(),
    celular: z.string().optional(),
  }),
  addCard: z.object({
    token: z.string(),
    identificador: z.union([z.string().min(1), z.number()]).transform(String),
    url: z.string().min(1),
    proveedor: z.string().optional(),
  }),
  cardAlias: z.object({
    token: z.string(),
    identificador: z.union([z.string().min(1), z.number()]).transform(String),
    tarjeta: z.string().min(1),
  }),
  charge: z.object({
    token: z.string(),
    identificador: z.union([z.string().min(1), z.number()]).transform(String),
    hash_pedido: z.string().min(1),
    tarjeta: z.string().min(1),
  }),
};

/** PROCESSOR_B's API under `/api/`: SHA-1 tokens, integer amounts, `{respuesta, resultado}` answers. */
export function processorBRoutes(core: SandboxCore, processor: ProcessorB) {
  const router = new Hono<SandboxEnv>();
  const settings = () => core.settings.processorB;

  router.use(
    '/api/*',
    processorFaults(core.faults, PROCESSOR_B, () => ({ body: failure('Servicio no disponible') })),
  );
  router.onError((error, c) => {
    if (error instanceof ProcessorBError) return c.json(failure(error.resultado), error.httpStatus);
    throw error;
  });

  async function signed<T extends z.ZodType>(
    c: SandboxContext,
    schema: T,
    expectedToken: (body: z.output<T>) => string,
  ): Promise<z.output<T>> {
    const body = (await readJsonBody(c)) as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object') throw new ProcessorBError(400, 'Datos inválidos: JSON');
    // The start call names the key `public_key`, the others `token_publico`; either is accepted.
    const publicKey = body.token_publico ?? body.public_key;
    if (publicKey !== settings().publicKey) throw new ProcessorBError(400, 'Public key no coincide');
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ProcessorBError(400, `Datos inválidos: ${issue?.path.join('.')} ${issue?.message}`);
    }
    const data = parsed.data as z.output<T> & { token: string };
    if (!sameToken(expectedToken(data), data.token)) throw new ProcessorBError(400, 'Token no coincide');
    return data;
  }

  const recurringToken = () => processorBTokens.recurring(settings().privateKey);

  router.post('/api/comercios/2.0/iniciar-transaccion', async (c) => {
    const body = await signed(c, schemas.start, (b) =>
      processorBTokens.startTransaction(settings().privateKey, b.id_pedido_comercio, b.monto_total),
    );
    const order = processor.startTransaction({
      commerceOrderId: body.id_pedido_comercio,
      amount: body.monto_total,
      maxPaymentText: body.fecha_maxima_pago,
    });
    return c.json({ respuesta: true, resultado: [{ data: order.hash, pedido: order.number }] });
  });

  router.post('/api/pedidos/1.1/traer', async (c) => {
    const body = await signed(c, schemas.byOrder, () => processorBTokens.query(settings().privateKey));
    const order = processor.query({ hash: body.hash_pedido, commerceOrderId: body.id_pedido_comercio });
    return c.json({ respuesta: true, resultado: [order] });
  });

  router.post('/api/pedidos/1.1/reversar', async (c) => {
    const body = await signed(c, schemas.reverse, () => processorBTokens.reverse(settings().privateKey));
    return c.json({ respuesta: true, resultado: processor.reverse(body.hash_pedido) });
  });

  router.post('/api/pago-recurrente/3.0/agregar-cliente', async (c) => {
    const body = await signed(c, schemas.customer, recurringToken);
    processor.addCustomer(body.identificador);
    return c.json({ respuesta: true, resultado: 'Cliente agregado' });
  });

  router.post('/api/pago-recurrente/3.0/agregar-tarjeta', async (c) => {
    const body = await signed(c, schemas.addCard, recurringToken);
    return c.json({ respuesta: true, resultado: processor.addCard(body.identificador, body.url) });
  });

  router.post('/api/pago-recurrente/3.0/confirmar-tarjeta', async (c) => {
    const body = await signed(c, schemas.customer, recurringToken);
    processor.confirmCards(body.identificador);
    return c.json({ respuesta: true, resultado: 'Tarjeta confirmada' });
  });

  router.post('/api/pago-recurrente/3.0/listar-tarjeta', async (c) => {
    const body = await signed(c, schemas.customer, recurringToken);
    return c.json({ respuesta: true, resultado: processor.listCards(body.identificador) });
  });

  router.post('/api/pago-recurrente/3.0/eliminar-tarjeta', async (c) => {
    const body = await signed(c, schemas.cardAlias, recurringToken);
    processor.deleteCard(body.identificador, body.tarjeta);
    return c.json({ respuesta: true, resultado: 'Tarjeta eliminada' });
  });

  router.post('/api/pago-recurrente/3.0/pagar', async (c) => {
    const body = await signed(c, schemas.charge, recurringToken);
    const { replyLost } = processor.charge({
      customerId: body.identificador,
      hash: body.hash_pedido,
      aliasToken: body.tarjeta,
    });
    if (replyLost) c.set('replyLost', true);
    return c.json({ respuesta: true, resultado: '' });
  });

  return router;
}
