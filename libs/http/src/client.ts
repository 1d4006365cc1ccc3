import type { MerchantContext } from '@payrail/contracts';
import { currentTraceHeaders } from '@payrail/observability';
import { signMerchantContext } from './merchant-context';

export interface InternalCall {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** When given, the call carries the signed merchant context. */
  merchant?: MerchantContext;
}

/**
 * Internal HTTP between services, used only where a person is waiting. Carries the W3C trace context,
 * so the callee's server span joins the caller's trace.
 */
export function createInternalClient(baseUrl: string, secret: string, timeoutMs = 10_000) {
  return async function call(request: InternalCall): Promise<Response> {
    const headers: Record<string, string> = { ...request.headers, ...currentTraceHeaders() };
    if (request.merchant) Object.assign(headers, signMerchantContext(request.merchant, secret));
    return fetch(new URL(request.path, baseUrl), {
      method: request.method,
      headers,
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  };
}

export type InternalClient = ReturnType<typeof createInternalClient>;
