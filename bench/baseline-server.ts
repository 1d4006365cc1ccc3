/**
 * The bare baseline of `npm run bench:links`: Hono and postgres.js, nothing else. Per request it reads
 * the JSON body and, in one transaction, inserts a link row and an outbox row, then answers the link's
 * id and slug: the database work a payment link costs, without authentication, validation, events
 * relay or a second hop. Run as its own process: DATABASE_URL and PORT.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL as string, { max: 10, onnotice: () => {} });

const schemaReady = sql.unsafe(`
  create schema if not exists baseline;
  create table if not exists baseline.links (
    id bigserial primary key, merchant_id uuid not null, slug text not null unique, label text not null,
    amount numeric(18, 2) not null, currency text not null, handle_value text not null,
    handle_label text not null, status_id integer not null default 1,
    created_at timestamptz not null default now());
  create table if not exists baseline.outbox (
    id uuid primary key, type text not null, body text not null, headers jsonb not null default '{}',
    created_at timestamptz not null default now(), published_at timestamptz);
`);

const merchantId = randomUUID();
const app = new Hono();
app.post('/api/saleitems/add', async (c) => {
  const body = (await c.req.json()) as Record<string, unknown>;
  const slug = randomBytes(9).toString('base64url');
  const link = await sql.begin(async (tx) => {
    const [row] = await tx`
      insert into baseline.links (merchant_id, slug, label, amount, currency, handle_value, handle_label)
      values (${merchantId}, ${slug}, ${String(body.label)}, ${String(body.amount)}, 'PYG',
              ${String(body.handleValue)}, ${String(body.handleLabel)})
      returning id`;
    const event = { id: randomUUID(), type: 'link.created', data: { linkId: Number(row?.id), slug } };
    await tx`insert into baseline.outbox (id, type, body) values (${event.id}, ${event.type}, ${JSON.stringify(event)})`;
    return { id: Number(row?.id), slug };
  });
  return c.json({ id: link.id, currency: 'PYG', ammount: String(body.amount), statusId: 1, slug: link.slug });
});
app.get('/readyz', (c) => c.json({ status: 'ready' }));

schemaReady.then(() => serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' }));
