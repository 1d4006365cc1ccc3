import {
  accessOperations,
  adminApi,
  apiOperations,
  billingAdminApi,
  billingAdminOperations,
  customerEmailSettings,
  MERCHANT_PAGE,
  type MerchantContext,
  merchantProfileApi,
  merchantProfileOperations,
  webhookOperations,
} from '@payrail/contracts';
import { answerMethodNotAllowed, HttpProblem, mountOperation, route, type Upstream } from '@payrail/http';
import type { ServiceName } from '@payrail/runtime';
import { type Env, Hono } from 'hono';
import { createMerchant } from '../../application/create-merchant';
import type { MerchantAdminDeps } from '../../application/deps';
import type { WebhookDeps } from '../../application/webhooks/deps';
import { getMerchant } from '../../application/get-merchant';
import { listMerchants } from '../../application/list-merchants';
import { issueApiToken } from '../../application/issue-api-token';
import { revokeApiToken } from '../../application/revoke-api-token';
import { updateMerchant } from '../../application/update-merchant';
import type { MerchantRecord } from '../../ports/merchant-store';
import type { AccessDeps } from '../../application/access/deps';
import { adminAccessRoutes } from './access-routes';
import { adminAuth, type OperatorAuthVariables } from './admin-auth';
import { type AuditDeps, auditOperatorWrites } from './audit-writes';
import { type ForwardSettings, forwardOperatorRequest, forwardToService, ownerOf } from './forward';
import { adminWebhookRoutes } from './webhook-routes';

export function merchantView(merchant: MerchantRecord) {
  return {
    id: merchant.id,
    name: merchant.name,
    instance: merchant.instance,
    currency: merchant.currency,
    saasContract: merchant.saasContract,
    noLoginEnabled: merchant.noLoginEnabled,
    customerCancelAllowed: merchant.customerCancelAllowed,
    callbackUrl: merchant.callbackUrl,
    timezone: merchant.timezone,
    processors: merchant.processors,
    customerEmails: merchant.customerEmails,
    contactEmail: merchant.contactEmail,
    createdAt: merchant.createdAt.toISOString(),
    updatedAt: merchant.updatedAt.toISOString(),
    tokens: merchant.tokens.map((token) => ({
      tokenId: token.tokenId,
      createdAt: token.createdAt.toISOString(),
      revokedAt: token.revokedAt?.toISOString() ?? null,
    })),
  };
}

/** The operator API (`/admin/*`). */
export function adminRoutes(
  deps: MerchantAdminDeps & {
    adminToken: string | undefined;
    upstream: (service: ServiceName) => Upstream;
    forward: ForwardSettings;
    webhooks: WebhookDeps;
    access: AccessDeps;
    audit: AuditDeps;
  },
) {
  const admin = new Hono<{ Variables: OperatorAuthVariables }>();
  admin.use('*', adminAuth(deps.adminToken));
  admin.use('*', auditOperatorWrites(deps.audit, apiOperations));
  const mountedAt = { mountedAt: '/admin' };

  route(
    admin,
    adminApi.createMerchant,
    async (c, { body }) => {
      const { merchant, tokenId, apiToken } = await createMerchant(deps, body);
      return c.json({ ...merchantView(merchant), tokenId, apiToken }, 201);
    },
    mountedAt,
  );

  route(
    admin,
    adminApi.listMerchants,
    async (c, { query }) => {
      const page = await listMerchants(deps, {
        after: merchantCursorOf(query.cursor),
        limit: query.limit ?? MERCHANT_PAGE.default,
      });
      return c.json({
        merchants: page.merchants.map(({ createdAt, updatedAt, ...settings }) => ({
          ...settings,
          createdAt: createdAt.toISOString(),
          updatedAt: updatedAt.toISOString(),
        })),
        nextCursor: page.next
          ? Buffer.from(`${page.next.createdAt.toISOString()}|${page.next.id}`).toString('base64url')
          : null,
      });
    },
    mountedAt,
  );

  route(
    admin,
    adminApi.getMerchant,
    async (c, { params }) => {
      const merchant = await getMerchant(deps, params.id.toLowerCase());
      return c.json(merchantView(merchant));
    },
    mountedAt,
  );

  route(
    admin,
    adminApi.updateMerchant,
    async (c, { params, body }) => {
      const merchant = await updateMerchant(deps, params.id.toLowerCase(), body);
      return c.json(merchantView(merchant));
    },
    mountedAt,
  );

  route(
    admin,
    adminApi.issueApiToken,
    async (c, { params }) => {
      const token = await issueApiToken(deps, params.id.toLowerCase());
      return c.json(
        { tokenId: token.tokenId, apiToken: token.apiToken, createdAt: token.createdAt.toISOString() },
        201,
      );
    },
    mountedAt,
  );

  route(
    admin,
    adminApi.revokeApiToken,
    async (c, { params }) => {
      await revokeApiToken(deps, params.id.toLowerCase(), params.tokenId.toLowerCase());
      return c.body(null, 204);
    },
    mountedAt,
  );

  // Billing runs and dunning policies belong to billing-scheduler; a policy of a merchant that does not
  // exist is 404 here, before anything is forwarded.
  const billingScheduler = deps.upstream('billing-scheduler');
  for (const operation of billingAdminOperations) {
    const merchantScoped =
      operation === billingAdminApi.getDunningPolicy || operation === billingAdminApi.setDunningPolicy;
    mountOperation(
      admin,
      operation,
      async (c) => {
        if (merchantScoped) {
          const id = c.req.param('id') ?? '';
          if (/^[0-9a-f-]{36}$/i.test(id)) await getMerchant(deps, id.toLowerCase());
        }
        return forwardOperatorRequest(c, billingScheduler, deps.forward);
      },
      mountedAt,
    );
  }

  adminWebhookRoutes(admin as unknown as Hono, { ...deps.webhooks, merchants: deps.merchants });
  adminAccessRoutes(admin as unknown as Hono, deps.access);

  answerMethodNotAllowed(admin);
  return admin;
}

/** A `nextCursor` of `GET /admin/merchants` read back (400 on the field when it is not one). */
function merchantCursorOf(cursor: string | undefined): { createdAt: Date; id: string } | null {
  if (cursor === undefined) return null;
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || !/^[0-9a-f-]{36}$/.test(id) || Number.isNaN(createdAt.getTime())) {
    const message = 'must be a nextCursor of an earlier page';
    throw new HttpProblem(400, 'VALIDATION_ERROR', `cursor ${message}`, [{ path: 'cursor', message }]);
  }
  return { createdAt, id };
}

/** `GET /api/merchant`: the merchant's settings, from the context its token gave (no other read). */
export function merchantProfileRoutes<E extends Env>(app: Hono<E>): void {
  route(app, merchantProfileApi.getMerchantProfile, (c) => {
    const merchant = c.get('merchant' as never) as MerchantContext;
    return c.json({
      id: merchant.merchantId,
      name: merchant.name,
      instance: merchant.instance,
      currency: merchant.currency,
      saasContract: merchant.saasContract,
      noLoginEnabled: merchant.noLoginEnabled,
      customerCancelAllowed: merchant.customerCancelAllowed === true,
      callbackUrl: merchant.callbackUrl,
      timezone: merchant.timezone,
      processors: merchant.processors,
      customerEmails: customerEmailSettings.parse(merchant.customerEmails ?? {}),
      contactEmail: merchant.contactEmail ?? null,
    });
  });
}

/**
 * The merchant API: each documented operation forwarded, as it came, to the service that owns its path
 * (which validates it). Only documented operations are bound, so an undocumented path is 404 here.
 */
export function merchantApiRoutes<E extends Env>(
  app: Hono<E>,
  deps: { upstream: (service: ServiceName) => Upstream; forward: ForwardSettings },
): void {
  // The webhook, access and profile APIs are the gateway's own (`webhook-routes.ts`, `access-routes.ts`,
  // `merchantProfileRoutes`), not forwarded.
  const own = new Set([...webhookOperations, ...accessOperations, ...merchantProfileOperations]);
  for (const operation of apiOperations.filter(
    (candidate) => candidate.security === 'apiToken' && !own.has(candidate),
  )) {
    const owner = ownerOf(operation.path);
    if (!owner) throw new Error(`No service owns ${operation.path}`);
    const upstream = deps.upstream(owner);
    mountOperation(app, operation, (c) =>
      forwardToService(c, upstream, c.get('merchant' as never), deps.forward),
    );
  }
}
