import type { Logger } from '@payrail/observability';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { confirmPayment } from '../../application/confirm-payment';
import type { ChargeDeps } from '../../application/settle-charge';
import type { ProcessorId } from '../../ports/card-processor';

/** Largest confirmation body we read; the processors' are a few hundred bytes. */
const MAX_BODY = 64 * 1024;

/**
 * The processors' confirmation webhooks (public: the processor calls them, with no merchant context). The
 * adapter verifies and answers in the processor's own terms (A: `{"status":"success"}`; B: the echoed
 * `resultado`, without which B keeps retrying). If we cannot store the outcome we answer 500, so B retries;
 * A does not retry, and the janitor's status query settles the charge instead.
 */
export function webhookRoutes(deps: ChargeDeps, logger: Logger) {
  const hooks = new Hono();
  const receive = (processor: ProcessorId) =>
    hooks.post(`/${processor === 'PARAGUAY.PROCESSOR_A' ? 'processor-a' : 'processor-b'}`, async (c) => {
      const body = await c.req.text();
      if (body.length > MAX_BODY) return c.json({ status: 'error' }, 413);
      const headers: Record<string, string> = {};
      c.req.raw.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const outcome = await confirmPayment(deps, processor, { body, headers });
      if (outcome.kind === 'rejected' || outcome.kind === 'unknown-reference') {
        logger.warn(
          { processor, outcome: outcome.kind, reason: outcome.reason },
          'processor confirmation not applied',
        );
      }
      return c.json(outcome.reply.body as object, outcome.reply.status as ContentfulStatusCode);
    });
  receive('PARAGUAY.PROCESSOR_A');
  receive('PARAGUAY.PROCESSOR_B');
  return hooks;
}
