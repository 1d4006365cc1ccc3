import type { WebhookEndpointRecord } from '../../src/ports/webhook-endpoint-store';

/** An enabled endpoint for the delivery worker's unit tests, named by letter (`endpoint-A`, `merchant-A`). */
export const endpointNamed = (name: string): WebhookEndpointRecord => ({
  id: `endpoint-${name}`,
  merchantId: `merchant-${name}`,
  url: `http://127.0.0.1:9/${name}`,
  method: 'POST',
  auth: null,
  events: ['*'],
  description: null,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  previousSecret: null,
  previousSecretExpiresAt: null,
  enabled: true,
  disabledAt: null,
  disabledReason: null,
  lastSuccessAt: null,
  createdAt: new Date('2026-11-24T10:00:00Z'),
  updatedAt: new Date('2026-11-24T10:00:00Z'),
});
