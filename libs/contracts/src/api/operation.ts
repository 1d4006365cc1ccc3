import type { z } from 'zod';

/**
 * One endpoint of the public API, described once from its zod schemas. The gateway turns the list of
 * these into the OpenAPI 3.1 document (`/openapi.json`), so the document cannot drift from validation.
 */
export interface ApiOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template: `/api/payrequests/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** `apiToken`: the merchant's `Api-Token` header; `adminToken`: operator bearer token. */
  security: 'apiToken' | 'adminToken' | 'none';
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  requestBody?: {
    schema: z.ZodType;
    example: unknown;
    examples?: Record<string, { summary: string; value: unknown }>;
  };
  responses: Record<number, { description: string; schema?: z.ZodType; example?: unknown }>;
}
