import { accessApi, adminAccessApi } from '@payrail/contracts';
import { route } from '@payrail/http';
import type { Context, Env, Hono } from 'hono';
import {
  createMerchantApiToken,
  listMerchantApiTokens,
  revokeMerchantApiToken,
} from '../../application/access/api-tokens';
import { listAuditLog } from '../../application/access/audit-log';
import type { AccessDeps } from '../../application/access/deps';
import {
  changeUserRole,
  inviteMerchantUser,
  inviteOperator,
  listMerchantUsers,
  listOperators,
  removeUser,
} from '../../application/access/people';
import type { AuditRecord } from '../../ports/audit-log-store';
import type { ConsoleUserRecord } from '../../ports/console-user-store';
import type { ApiTokenSummary } from '../../ports/merchant-store';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function apiTokenView(token: ApiTokenSummary) {
  return {
    id: token.tokenId,
    name: token.name,
    scope: token.scope,
    createdAt: token.createdAt.toISOString(),
    lastUsedAt: iso(token.lastUsedAt),
    revokedAt: iso(token.revokedAt),
  };
}

export function userView(user: ConsoleUserRecord) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role ?? ('viewer' as const),
    status: user.passwordHash === null ? ('invited' as const) : ('active' as const),
    twoFactor: user.totpEnabledAt !== null,
    language: user.language,
    createdAt: user.createdAt.toISOString(),
    lastLoginAt: iso(user.lastLoginAt),
    invitationExpiresAt: iso(user.invitationExpiresAt),
  };
}

function operatorView(user: ConsoleUserRecord) {
  const { role: _role, language: _language, ...view } = userView(user);
  return view;
}

function auditEntryView(entry: AuditRecord) {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: entry.actor,
    operationId: entry.operationId,
    method: entry.method,
    path: entry.path,
    target: entry.target,
    status: entry.status,
    before: (entry.before ?? null) as Record<string, unknown> | null,
    after: (entry.after ?? null) as Record<string, unknown> | null,
    clientAddress: entry.clientAddress,
  };
}

const merchantOf = (c: Context) => (c.get('merchant' as never) as { merchantId: string }).merchantId;

/** The merchant's API tokens, console users and audit log (`/api/api-tokens`, `/api/users`, `/api/audit-log`). */
export function merchantAccessRoutes<E extends Env>(app: Hono<E>, deps: AccessDeps): void {
  route(app, accessApi.createApiToken, async (c, { body }) => {
    const { apiToken, ...token } = await createMerchantApiToken(deps, merchantOf(c), body);
    return c.json({ ...apiTokenView(token), apiToken }, 201);
  });
  route(app, accessApi.listApiTokens, async (c) => {
    const tokens = await listMerchantApiTokens(deps, merchantOf(c));
    return c.json({ tokens: tokens.map(apiTokenView) });
  });
  route(app, accessApi.deleteApiToken, async (c, { params }) => {
    await revokeMerchantApiToken(deps, merchantOf(c), params.id.toLowerCase());
    return c.body(null, 204);
  });
  route(app, accessApi.inviteUser, async (c, { body }) => {
    const user = await inviteMerchantUser(deps, merchantOf(c), body);
    return c.json(userView(user), 201);
  });
  route(app, accessApi.listUsers, async (c) => {
    const users = await listMerchantUsers(deps, merchantOf(c));
    return c.json({ users: users.map(userView) });
  });
  route(app, accessApi.updateUser, async (c, { params, body }) => {
    const user = await changeUserRole(deps, merchantOf(c), params.id.toLowerCase(), body.role);
    return c.json(userView(user));
  });
  route(app, accessApi.deleteUser, async (c, { params }) => {
    await removeUser(deps, merchantOf(c), params.id.toLowerCase());
    return c.body(null, 204);
  });
  route(app, accessApi.listAuditLog, async (c, { query }) => {
    const page = await listAuditLog(deps, merchantOf(c), {
      operationId: query.operationId,
      actorId: query.actorId?.toLowerCase(),
      target: query.target,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      before: query.cursor === undefined ? undefined : Number(query.cursor),
      limit: query.limit,
    });
    return c.json({
      entries: page.entries.map(auditEntryView),
      nextCursor: page.nextCursor === null ? null : String(page.nextCursor),
    });
  });
}

/** The operator's: a merchant's users (its first owner) and the operator's own console accounts. */
export function adminAccessRoutes(admin: Hono, deps: AccessDeps): void {
  const mountedAt = { mountedAt: '/admin' };
  route(
    admin,
    adminAccessApi.inviteMerchantUser,
    async (c, { params, body }) => {
      const user = await inviteMerchantUser(deps, params.id.toLowerCase(), body);
      return c.json(userView(user), 201);
    },
    mountedAt,
  );
  route(
    admin,
    adminAccessApi.listMerchantUsers,
    async (c, { params }) => {
      const users = await listMerchantUsers(deps, params.id.toLowerCase());
      return c.json({ users: users.map(userView) });
    },
    mountedAt,
  );
  route(
    admin,
    adminAccessApi.inviteOperator,
    async (c, { body }) => c.json(operatorView(await inviteOperator(deps, body)), 201),
    mountedAt,
  );
  route(
    admin,
    adminAccessApi.listOperators,
    async (c) => c.json({ operators: (await listOperators(deps)).map(operatorView) }),
    mountedAt,
  );
}
