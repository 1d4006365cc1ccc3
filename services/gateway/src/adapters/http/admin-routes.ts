import { createMerchantRequest, updateMerchantRequest } from '@payrail/contracts';
import { HttpProblem, jsonBody, problems } from '@payrail/http';
import { Hono } from 'hono';
import { createMerchant } from '../../application/create-merchant';
import type { MerchantAdminDeps } from '../../application/deps';
import { getMerchant } from '../../application/get-merchant';
import { issueApiToken } from '../../application/issue-api-token';
import { revokeApiToken } from '../../application/revoke-api-token';
import { updateMerchant } from '../../application/update-merchant';
import { ApiTokenNotFound, InvalidMerchantSettings, MerchantNotFound } from '../../domain/errors';
import type { MerchantRecord } from '../../ports/merchant-store';
import { adminAuth } from './admin-auth';

/** Domain errors to HTTP, in one place. */
function toProblem(error: unknown): never {
  if (error instanceof InvalidMerchantSettings) {
    throw problems.badRequest(error.message, [{ path: error.field, message: error.message }]);
  }
  if (error instanceof MerchantNotFound)
    throw new HttpProblem(404, 'MERCHANT_NOT_FOUND', 'Merchant not found');
  if (error instanceof ApiTokenNotFound)
    throw new HttpProblem(404, 'API_TOKEN_NOT_FOUND', 'API token not found');
  throw error;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed id names no merchant: 404, like an unknown one. */
function merchantId(raw: string): string {
  if (!UUID.test(raw)) toProblem(new MerchantNotFound(raw));
  return raw.toLowerCase();
}

export function merchantView(merchant: MerchantRecord) {
  return {
    id: merchant.id,
    name: merchant.name,
    instance: merchant.instance,
    currency: merchant.currency,
    saasContract: merchant.saasContract,
    noLoginEnabled: merchant.noLoginEnabled,
    callbackUrl: merchant.callbackUrl,
    timezone: merchant.timezone,
    processors: merchant.processors,
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
export function adminRoutes(deps: MerchantAdminDeps & { adminToken: string | undefined }) {
  const admin = new Hono();
  admin.use('*', adminAuth(deps.adminToken));

  admin.post('/merchants', async (c) => {
    const request = await jsonBody(c, createMerchantRequest);
    const { merchant, tokenId, apiToken } = await createMerchant(deps, request).catch(toProblem);
    return c.json({ ...merchantView(merchant), tokenId, apiToken }, 201);
  });

  admin.get('/merchants/:id', async (c) => {
    const merchant = await getMerchant(deps, merchantId(c.req.param('id'))).catch(toProblem);
    return c.json(merchantView(merchant));
  });

  admin.patch('/merchants/:id', async (c) => {
    const id = merchantId(c.req.param('id'));
    const change = await jsonBody(c, updateMerchantRequest);
    const merchant = await updateMerchant(deps, id, change).catch(toProblem);
    return c.json(merchantView(merchant));
  });

  admin.post('/merchants/:id/tokens', async (c) => {
    const token = await issueApiToken(deps, merchantId(c.req.param('id'))).catch(toProblem);
    return c.json(
      { tokenId: token.tokenId, apiToken: token.apiToken, createdAt: token.createdAt.toISOString() },
      201,
    );
  });

  admin.delete('/merchants/:id/tokens/:tokenId', async (c) => {
    const tokenId = c.req.param('tokenId');
    if (!UUID.test(tokenId)) toProblem(new ApiTokenNotFound(tokenId));
    await revokeApiToken(deps, merchantId(c.req.param('id')), tokenId.toLowerCase()).catch(toProblem);
    return c.body(null, 204);
  });

  return admin;
}
