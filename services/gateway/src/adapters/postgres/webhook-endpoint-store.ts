import { ALL_WEBHOOK_EVENTS, type WebhookEventFilter } from '@payrail/contracts';
import type { Database } from '@payrail/db';
import { and, asc, eq } from 'drizzle-orm';
import type {
  WebhookAuth,
  WebhookEndpointRecord,
  WebhookEndpointStore,
} from '../../ports/webhook-endpoint-store';
import { webhookEndpoints } from './schema';
import type { SecretSealer } from './secret-sealer';

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** An endpoint's row as the application sees it: its secrets and credential opened. */
export function endpointOf(row: EndpointRow, sealer: SecretSealer): WebhookEndpointRecord {
  return {
    id: row.id,
    merchantId: row.merchantId,
    url: row.url,
    method: row.method,
    auth: row.authSealed ? (JSON.parse(sealer.open(row.authSealed)) as WebhookAuth) : null,
    // Null: written by a gateway from before `["*"]` (migration 0004 rewrote the rows there were), every kind.
    events: (row.events as WebhookEventFilter | null) ?? [ALL_WEBHOOK_EVENTS],
    description: row.description,
    secret: sealer.open(row.secretSealed),
    previousSecret: row.previousSecretSealed ? sealer.open(row.previousSecretSealed) : null,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    enabled: row.enabled,
    disabledAt: row.disabledAt,
    disabledReason: row.disabledReason,
    lastSuccessAt: row.lastSuccessAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function authColumns(auth: WebhookAuth | null, sealer: SecretSealer) {
  if (!auth) return { authType: null, authLabel: null, authSealed: null };
  return {
    authType: auth.type,
    authLabel: auth.type === 'basic' ? auth.username : auth.name,
    authSealed: sealer.seal(JSON.stringify(auth)),
  };
}

/** The merchants' endpoints, their signing secrets and receiver credentials sealed at rest by `sealer`. */
export function postgresWebhookEndpointStore(db: Database, sealer: SecretSealer): WebhookEndpointStore {
  return {
    async insertEndpoint(endpoint) {
      await db.insert(webhookEndpoints).values({
        id: endpoint.id,
        merchantId: endpoint.merchantId,
        url: endpoint.url,
        method: endpoint.method,
        ...authColumns(endpoint.auth, sealer),
        events: endpoint.events,
        description: endpoint.description,
        secretSealed: sealer.seal(endpoint.secret),
        previousSecretSealed: endpoint.previousSecret ? sealer.seal(endpoint.previousSecret) : null,
        previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
        enabled: endpoint.enabled,
        disabledAt: endpoint.disabledAt,
        disabledReason: endpoint.disabledReason,
        lastSuccessAt: endpoint.lastSuccessAt,
        createdAt: endpoint.createdAt,
        updatedAt: endpoint.updatedAt,
      });
    },
    async findEndpoint(merchantId, id) {
      const [row] = await db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.id, id)));
      return row ? endpointOf(row, sealer) : null;
    },
    async listEndpoints(merchantId) {
      const rows = await db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.merchantId, merchantId))
        .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
      return rows.map((row) => endpointOf(row, sealer));
    },
    async updateEndpoint(merchantId, id, changes) {
      const { auth, secret, previousSecret, ...plain } = changes;
      const set: Partial<typeof webhookEndpoints.$inferInsert> = { ...plain };
      if (auth !== undefined) Object.assign(set, authColumns(auth, sealer));
      if (secret !== undefined) set.secretSealed = sealer.seal(secret);
      if (previousSecret !== undefined)
        set.previousSecretSealed = previousSecret === null ? null : sealer.seal(previousSecret);
      const [row] = await db
        .update(webhookEndpoints)
        .set(set)
        .where(and(eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.id, id)))
        .returning();
      return row ? endpointOf(row, sealer) : null;
    },
    async deleteEndpoint(merchantId, id) {
      const deleted = await db
        .delete(webhookEndpoints)
        .where(and(eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.id, id)))
        .returning({ id: webhookEndpoints.id });
      return deleted.length > 0;
    },
  };
}
