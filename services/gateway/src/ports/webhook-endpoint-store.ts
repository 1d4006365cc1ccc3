import type { WebhookEventFilter } from '@payrail/contracts';

export type WebhookAuth =
  | { type: 'basic'; username: string; password: string }
  | { type: 'header'; name: string; value: string };

/** A merchant's webhook endpoint, its secrets and credential open (sealed at rest by the adapter). */
export interface WebhookEndpointRecord {
  id: string;
  merchantId: string;
  url: string;
  method: 'POST' | 'PUT';
  auth: WebhookAuth | null;
  /** The kinds it takes, by name, or `["*"]` for every kind. */
  events: WebhookEventFilter;
  description: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
  lastSuccessAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type WebhookEndpointChanges = Partial<
  Pick<
    WebhookEndpointRecord,
    | 'url'
    | 'method'
    | 'auth'
    | 'events'
    | 'description'
    | 'secret'
    | 'previousSecret'
    | 'previousSecretExpiresAt'
    | 'enabled'
    | 'disabledAt'
    | 'disabledReason'
  >
> & { updatedAt: Date };

/** The merchants' webhook endpoints; one merchant's are never another's (each call names the merchant). */
export interface WebhookEndpointStore {
  insertEndpoint(endpoint: WebhookEndpointRecord): Promise<void>;
  findEndpoint(merchantId: string, id: string): Promise<WebhookEndpointRecord | null>;
  listEndpoints(merchantId: string): Promise<WebhookEndpointRecord[]>;
  updateEndpoint(
    merchantId: string,
    id: string,
    changes: WebhookEndpointChanges,
  ): Promise<WebhookEndpointRecord | null>;
  deleteEndpoint(merchantId: string, id: string): Promise<boolean>;
}
