/** One HTTP request to a merchant's receiver, as the delivery makes it. */
export interface WebhookRequest {
  url: string;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  body: string;
}

export interface WebhookResponse {
  /** Null when nothing came back (refused, timed out, unreachable). */
  statusCode: number | null;
  durationMs: number;
  /** The first 1 KB of the answer. */
  responseExcerpt: string | null;
  error: string | null;
}

/** Sends one webhook; never throws (a failure is a response without a status). */
export type WebhookSender = (request: WebhookRequest) => Promise<WebhookResponse>;
