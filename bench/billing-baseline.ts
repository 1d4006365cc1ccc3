/**
 * The bare baseline of `npm run bench:billing`: what charging a due installment cannot do without, and
 * nothing else. Per due installment, with the system's concurrency (processor-gateway takes 100
 * `charge.requested` at once): PROCESSOR_A's charge at the sandbox over a kept-alive connection (its stored
 * cards are charged through a single-use alias, so the charge is the card listing that hands out the alias,
 * then the charge call; node:http with a keep-alive agent), then one transaction that writes the charge and the installment's paid state. No
 * broker, no outbox, no run, no claim, no idempotency before the call, no retry: the floor the system's
 * rate is compared with, on the same machine, PostgreSQL server and sandbox, in the same run.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import postgres from 'postgres';

/** processor-gateway's prefetch of `charge.requested`: the charges it has in flight at once. */
export const BASELINE_CONCURRENCY = 100;
/** A service's pool (`DATABASE_POOL_MAX` as the bench sets it). */
const POOL = 4;
/** Far above the system's references: the sandbox refuses a `shop_process_id` used before. */
const SPID_BASE = 900_000_000_000_000;
const PUBLIC_KEY = process.env.PROCESSOR_A_PUBLIC_KEY ?? 'sandbox-a-public';
const PRIVATE_KEY = process.env.PROCESSOR_A_PRIVATE_KEY ?? 'sandbox-a-private';

const md5 = (...parts: string[]) => createHash('md5').update(parts.join(''), 'utf8').digest('hex');

export interface BaselineResult {
  charges: number;
  seconds: number;
  chargesPerSecond: number;
  /** Installments with more than one approved charge at the sandbox (the baseline's references). */
  chargedTwice: number;
  declined: number;
}

/**
 * Charges `perCard` installments of each card the sandbox stores (the bench's seeded customers) through
 * the bare loop, in a schema of its own (`baseline`) of the bench's database.
 */
export async function runBillingBaseline(options: {
  databaseUrl: string;
  sandboxUrl: string;
  perCard: number;
  concurrency?: number;
}): Promise<BaselineResult> {
  const concurrency = options.concurrency ?? BASELINE_CONCURRENCY;
  const sql = postgres(options.databaseUrl, { max: POOL, onnotice: () => {} });
  const cleanups: Array<() => void> = [];
  try {
    await sql.unsafe(`
      create schema if not exists baseline;
      create table if not exists baseline.installments (
        id bigserial primary key, user_id text not null, card_id text not null,
        amount numeric(18, 2) not null, currency text not null, status text not null default 'due',
        paid_at timestamptz);
      create table if not exists baseline.charges (
        id bigserial primary key, installment_id bigint not null references baseline.installments (id),
        reference text not null unique, status text not null, authorization_number text,
        response jsonb not null, created_at timestamptz not null default now());`);
    const { cards } = (await (await fetch(`${options.sandboxUrl}/__sandbox/stored-cards`)).json()) as {
      cards: Array<{ userId: string; cardId: string }>;
    };
    const rows = cards.flatMap((card) =>
      Array.from({ length: options.perCard }, () => ({
        user_id: card.userId,
        card_id: card.cardId,
        amount: '150000.00',
        currency: 'PYG',
      })),
    );
    for (let at = 0; at < rows.length; at += 5_000)
      await sql`insert into baseline.installments ${sql(rows.slice(at, at + 5_000))}`;
    await sql`analyze baseline.installments`;

    // node:http with a keep-alive agent: the cheapest client Node has, one socket per worker kept open.
    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    const post = (path: string, operation: Record<string, unknown>) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const body = JSON.stringify({ public_key: PUBLIC_KEY, operation });
        const request = http.request(
          `${options.sandboxUrl}/vpos/api/0.3/${path}`,
          {
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              try {
                resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
              } catch (error) {
                reject(error);
              }
            });
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    cleanups.push(() => agent.destroy());
    let declined = 0;
    const started = Date.now();
    const due = await sql<
      Array<{ id: string; userId: string; cardId: string; amount: string; currency: string }>
    >`
      select id::text, user_id as "userId", card_id as "cardId", amount::text, currency
      from baseline.installments where status = 'due' order by id`;
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const installment = due[next++] as (typeof due)[number];
        const listing = await post(`users/${installment.userId}/cards`, {
          token: md5(PRIVATE_KEY, installment.userId, 'request_user_cards'),
        });
        const card = (listing.cards as Array<{ alias_token: string; card_id: number }> | undefined)?.find(
          (each) => String(each.card_id) === installment.cardId,
        );
        if (!card)
          throw new Error(`the sandbox lists no card ${installment.cardId} for ${installment.userId}`);
        const spid = String(SPID_BASE + Number(installment.id));
        const reply = await post('charge', {
          token: md5(PRIVATE_KEY, spid, 'charge', installment.amount, installment.currency, card.alias_token),
          shop_process_id: spid,
          amount: installment.amount,
          currency: installment.currency,
          alias_token: card.alias_token,
          number_of_payments: 1,
          description: 'Baseline',
        });
        const confirmation = reply.confirmation as
          | { response_code?: string; authorization_number?: string }
          | undefined;
        const approved = reply.status === 'success' && confirmation?.response_code === '00';
        if (!approved) declined += 1;
        await sql.begin(async (tx) => {
          await tx`
            insert into baseline.charges (installment_id, reference, status, authorization_number, response)
            values (${installment.id}, ${spid}, ${approved ? 'succeeded' : 'failed'},
                    ${confirmation?.authorization_number ?? null}, ${tx.json(reply as postgres.JSONValue)})`;
          if (approved)
            await tx`update baseline.installments set status = 'paid', paid_at = now() where id = ${installment.id}`;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
    const seconds = (Date.now() - started) / 1000;
    const charges = due.length - declined;
    const references = new Set(due.map((row) => String(SPID_BASE + Number(row.id))));
    const approvedPer = new Map<string, number>();
    for (let after: number | null = 0; after !== null; ) {
      const page = (await (
        await fetch(`${options.sandboxUrl}/__sandbox/ledger?after=${after}&limit=10000`)
      ).json()) as {
        entries: Array<{ kind: string; reference: string; resultCode: string }>;
        next: number | null;
      };
      for (const entry of page.entries)
        if (entry.kind === 'charge' && entry.resultCode === '00' && references.has(entry.reference))
          approvedPer.set(entry.reference, (approvedPer.get(entry.reference) ?? 0) + 1);
      after = page.next;
    }
    return {
      charges,
      seconds,
      chargesPerSecond: charges / seconds,
      chargedTwice: [...approvedPer.values()].filter((count) => count > 1).length,
      declined,
    };
  } finally {
    for (const cleanup of cleanups) cleanup();
    await sql.end();
  }
}
