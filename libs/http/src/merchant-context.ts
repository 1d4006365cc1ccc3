import { createHmac, timingSafeEqual } from 'node:crypto';
import { type MerchantContext, merchantContextSchema } from '@payrail/contracts';
import type { MiddlewareHandler } from 'hono';
import { requestHeader } from './headers';
import { HttpProblem } from './problem';

export const MERCHANT_CONTEXT_HEADER = 'x-merchant-context';
export const MERCHANT_SIGNATURE_HEADER = 'x-merchant-signature';
/** A signed context older than this is refused (replay window). */
const MAX_AGE_MS = 5 * 60 * 1000;

function sign(secret: string, timestamp: number, payload: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('base64url');
}

/** A signature is reused for this long (well inside the replay window) for the same merchant object. */
const REUSE_SIGNATURE_MS = 30_000;

/**
 * Signatures made, by the merchant object they were made for: the gateway's token cache hands back the
 * same object for every request of a token while it is cached, so its context is signed once per
 * `REUSE_SIGNATURE_MS`, not per request. The object's JSON is compared, so one changed in place is
 * signed afresh.
 */
const signatures = new WeakMap<
  MerchantContext,
  { secret: string; json: string; signedAt: number; headers: Record<string, string> }
>();

/**
 * The gateway authenticates the merchant, then forwards these two headers. Services trust the merchant
 * only through them: an internal port reached directly cannot be given a forged merchant. The headers
 * handed back may be shared: copy them before changing them.
 */
export function signMerchantContext(
  merchant: MerchantContext,
  secret: string,
  now = Date.now(),
): Readonly<Record<string, string>> {
  const json = JSON.stringify(merchant);
  const known = signatures.get(merchant);
  if (
    known &&
    known.json === json &&
    known.secret === secret &&
    now >= known.signedAt &&
    now - known.signedAt < REUSE_SIGNATURE_MS
  )
    return known.headers;
  const payload = Buffer.from(json).toString('base64url');
  const headers = {
    [MERCHANT_CONTEXT_HEADER]: payload,
    [MERCHANT_SIGNATURE_HEADER]: `t=${now},v1=${sign(secret, now, payload)}`,
  };
  signatures.set(merchant, { secret, json, signedAt: now, headers });
  return headers;
}

export function verifyMerchantContext(
  payload: string | undefined,
  signature: string | undefined,
  secret: string,
  now = Date.now(),
): MerchantContext | undefined {
  if (!payload || !signature) return undefined;
  const match = /^t=(\d+),v1=([\w-]+)$/.exec(signature);
  if (!match) return undefined;
  const timestamp = Number(match[1]);
  if (!Number.isFinite(timestamp) || Math.abs(now - timestamp) > MAX_AGE_MS) return undefined;
  // The gateway reuses a signature for many requests (REUSE_SIGNATURE_MS): the same signature over the
  // same payload with the same secret verifies the same, so its HMAC is computed once. The age was
  // checked above, for every request.
  const seen = verifiedSignatures.get(signature);
  if (seen && seen.payload === payload && seen.secret === secret) return seen.context;
  const expected = Buffer.from(sign(secret, timestamp, payload));
  const given = Buffer.from(match[2] ?? '');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  const context = contextOf(payload);
  if (context) {
    if (verifiedSignatures.size >= MAX_VERIFIED) verifiedSignatures.clear();
    verifiedSignatures.set(signature, { payload, secret, context });
  }
  return context;
}

/** The context a verified payload holds; the gateway signs the same payload for every request of a merchant. */
function contextOf(payload: string): MerchantContext | undefined {
  const known = verifiedPayloads.get(payload);
  if (known) return known;
  try {
    const parsed = merchantContextSchema.safeParse(
      JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
    );
    if (!parsed.success) return undefined;
    if (verifiedPayloads.size >= MAX_VERIFIED) verifiedPayloads.clear();
    verifiedPayloads.set(payload, parsed.data);
    return parsed.data;
  } catch {
    return undefined;
  }
}

/**
 * Payloads and signatures that once verified, with the context they hold. Only consulted after the
 * request at hand's signature verified (payloads), or for the very signature, payload and secret that
 * verified (signatures), so a forged, altered or expired request never gets a context from them.
 */
const verifiedPayloads = new Map<string, MerchantContext>();
const verifiedSignatures = new Map<string, { payload: string; secret: string; context: MerchantContext }>();
const MAX_VERIFIED = 1_000;

/** Middleware for a service's internal merchant routes: sets `c.var.merchant` or answers 401. */
export function requireMerchant(
  secret: string,
): MiddlewareHandler<{ Variables: { merchant: MerchantContext } }> {
  return async (c, next) => {
    const merchant = verifyMerchantContext(
      requestHeader(c, MERCHANT_CONTEXT_HEADER),
      requestHeader(c, MERCHANT_SIGNATURE_HEADER),
      secret,
    );
    if (!merchant) throw new HttpProblem(401, 'UNAUTHORIZED', 'Missing or invalid merchant context');
    c.set('merchant', merchant);
    await next();
  };
}
