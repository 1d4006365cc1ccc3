import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress, literalAddressOf } from '../../application/webhooks/network';
import type { WebhookSender } from '../../ports/webhook-sender';

const EXCERPT_BYTES = 1024;

/**
 * Resolves like the system does, but refuses a name that resolves to a loopback, private or link-local
 * address (checked on the address actually connected to, so a name cannot be re-pointed after a check).
 */
function guardedLookup(allowPrivateNetworks: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      if (!allowPrivateNetworks && list.some((entry) => isPrivateAddress(entry.address))) {
        const refused = Object.assign(new Error(`${hostname} resolves to a private network address`), {
          code: 'WEBHOOK_PRIVATE_ADDRESS',
        });
        return callback(refused, '', 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} did not resolve`), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}

/** Sends with node's HTTP client: no redirects followed (a 3xx is not delivered), a hard deadline. */
export function httpWebhookSender(options: {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}): WebhookSender {
  const lookup = guardedLookup(options.allowPrivateNetworks);
  return (request) =>
    new Promise((resolve) => {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const url = new URL(request.url);
      const literal = literalAddressOf(url.hostname);
      if (literal && !options.allowPrivateNetworks && isPrivateAddress(literal)) {
        resolve({
          statusCode: null,
          durationMs: 0,
          responseExcerpt: null,
          error: 'refused: private network address',
        });
        return;
      }
      let settled = false;
      const finish = (outcome: {
        statusCode: number | null;
        responseExcerpt: string | null;
        error: string | null;
      }) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ ...outcome, durationMs: elapsed() });
      };
      const client = url.protocol === 'https:' ? https : http;
      const outgoing = client.request(
        url,
        {
          method: request.method,
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          lookup,
          agent: false,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          response.on('data', (chunk: Buffer) => {
            if (kept < EXCERPT_BYTES) {
              chunks.push(chunk.subarray(0, EXCERPT_BYTES - kept));
              kept += Math.min(chunk.length, EXCERPT_BYTES - kept);
            }
          });
          response.on('end', () =>
            finish({
              statusCode: response.statusCode ?? null,
              responseExcerpt: Buffer.concat(chunks).toString('utf8'),
              error: null,
            }),
          );
          response.on('error', (error) =>
            finish({ statusCode: response.statusCode ?? null, responseExcerpt: null, error: error.message }),
          );
        },
      );
      const deadline = setTimeout(() => {
        outgoing.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      outgoing.on('error', (error) =>
        finish({ statusCode: null, responseExcerpt: null, error: error.message }),
      );
      outgoing.end(request.body);
    });
}
