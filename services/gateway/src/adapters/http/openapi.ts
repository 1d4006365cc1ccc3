import { type ApiOperation, PAYMENT_LINK_STATUS_TABLE } from '@payrail/contracts';
import { z } from 'zod';

type JsonObject = Record<string, unknown>;

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

/** RFC 9457 problem document, the body of every error (design 4). */
const problemSchema: JsonObject = {
  type: 'object',
  description: 'RFC 9457 problem details, `application/problem+json`.',
  required: ['type', 'title', 'status', 'code', 'detail', 'errors', 'requestId'],
  properties: {
    type: { type: 'string', examples: ['about:blank#VALIDATION_ERROR'] },
    title: { type: 'string', examples: ['Bad Request'] },
    status: { type: 'integer', examples: [400] },
    code: {
      type: 'string',
      description:
        'Stable error code: VALIDATION_ERROR, MALFORMED_JSON, UNAUTHORIZED, NOT_FOUND, IDEMPOTENCY_KEY_REUSED, ' +
        'IDEMPOTENCY_IN_PROGRESS, IDEMPOTENCY_RESPONSE_UNAVAILABLE, PAYLOAD_TOO_LARGE, or a merchant-configuration rule such as ' +
        'NO_LOGIN_NOT_ENABLED, SAAS_CONTRACT_REQUIRED, CALLBACK_URL_NOT_CONFIGURED, REDIRECT_ORIGIN_MISMATCH, ' +
        'CURRENCY_NOT_OFFERED.',
    },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      description: 'One entry per invalid field; `path` is the dotted JSON path (`signedInUser.email`).',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
    requestId: { type: 'string' },
    instance: { type: 'string' },
  },
};

const ERROR_TEXT: Record<number, { code: string; title: string; detail: string }> = {
  400: { code: 'VALIDATION_ERROR', title: 'Bad Request', detail: 'Request body is invalid' },
  401: { code: 'UNAUTHORIZED', title: 'Unauthorized', detail: 'Api-Token header missing or invalid' },
  404: { code: 'NOT_FOUND', title: 'Not Found', detail: 'Not found' },
  409: {
    code: 'IDEMPOTENCY_IN_PROGRESS',
    title: 'Conflict',
    detail: 'A request with this Idempotency-Key is still being processed; retry later',
  },
  413: { code: 'PAYLOAD_TOO_LARGE', title: 'Payload Too Large', detail: 'Too many entries' },
  422: {
    code: 'VALIDATION_ERROR',
    title: 'Unprocessable Content',
    detail: 'Not allowed by the merchant configuration',
  },
};

const DEFAULT_ERROR_DESCRIPTION: Record<number, string> = {
  400: 'A required field is missing or has the wrong format.',
  401: 'Credentials missing or invalid.',
  404: 'Not found (also another merchant’s resource).',
  409: 'A request with the same Idempotency-Key is still being processed.',
  413: 'Payload too large.',
  422: 'Not allowed by the merchant’s configuration, or Idempotency-Key reused with another request.',
};

const EXAMPLE_ID = { apiToken: '1045', adminToken: '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10', none: '1' };

function errorExample(status: number, operation: ApiOperation): JsonObject {
  const text = ERROR_TEXT[status] ?? { code: 'ERROR', title: 'Error', detail: 'Error' };
  const detail =
    status === 401 && operation.security === 'adminToken'
      ? 'Authorization: Bearer <admin token> missing or invalid'
      : text.detail;
  return {
    type: `about:blank#${text.code}`,
    title: text.title,
    status,
    code: text.code,
    detail,
    errors: status === 400 ? [{ path: 'amount', message: 'must be a number with at most two decimals' }] : [],
    requestId: '4b6f2a8e-0c1d-4e3f-9a5b-6c7d8e9f0a1b',
    instance: operation.path.replace(/\{[^}]+\}/g, EXAMPLE_ID[operation.security]),
  };
}

/** A zod schema as an OpenAPI 3.1 (JSON Schema 2020-12) schema object, for requests or responses. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonObject;
  return json;
}

function parametersOf(operation: ApiOperation): JsonObject[] {
  const parameters: JsonObject[] = [];
  const add = (where: 'path' | 'query', shape: z.ZodObject | undefined) => {
    if (!shape) return;
    const json = jsonSchemaOf(shape, 'input') as {
      properties?: Record<string, JsonObject>;
      required?: string[];
    };
    for (const [name, schema] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  };
  add('path', operation.pathParams);
  add('query', operation.query);
  if (takesIdempotencyKey(operation)) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  return parameters;
}

/** Every POST, PUT and PATCH of the merchant API honours `Idempotency-Key` (the gateway enforces it on all). */
export function takesIdempotencyKey(operation: ApiOperation): boolean {
  return operation.security === 'apiToken' && ['post', 'put', 'patch'].includes(operation.method);
}

function responsesOf(operation: ApiOperation): JsonObject {
  const responses: Record<string, JsonObject> = {};
  const statuses = new Set(Object.keys(operation.responses).map(Number));
  if (operation.security !== 'none') statuses.add(401);
  if (operation.requestBody || operation.query) statuses.add(400);
  if (takesIdempotencyKey(operation)) {
    statuses.add(409);
    statuses.add(422);
  }
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const declared = operation.responses[status];
    const description = declared?.description ?? DEFAULT_ERROR_DESCRIPTION[status] ?? 'Error';
    if (status >= 400) {
      responses[String(status)] = {
        description,
        content: {
          'application/problem+json': {
            schema: PROBLEM_REF,
            example: declared?.example ?? errorExample(status, operation),
          },
        },
      };
    } else if (declared?.schema) {
      const media: JsonObject = { schema: jsonSchemaOf(declared.schema, 'output') };
      if (declared.example !== undefined) media.example = declared.example;
      responses[String(status)] = { description, content: { 'application/json': media } };
    } else {
      responses[String(status)] = { description };
    }
  }
  return responses;
}

function operationObject(operation: ApiOperation): JsonObject {
  const result: JsonObject = {
    operationId: operation.operationId,
    summary: operation.summary,
    tags: operation.tags,
  };
  if (operation.description) result.description = operation.description;
  result.security = operation.security === 'none' ? [] : [{ [operation.security]: [] }];
  const parameters = parametersOf(operation);
  if (parameters.length > 0) result.parameters = parameters;
  if (operation.requestBody) {
    const media: JsonObject = {
      schema: jsonSchemaOf(operation.requestBody.schema, 'input'),
      example: operation.requestBody.example,
    };
    if (operation.requestBody.examples) {
      delete media.example;
      media.examples = operation.requestBody.examples;
    }
    result.requestBody = { required: true, content: { 'application/json': media } };
  }
  result.responses = responsesOf(operation);
  return result;
}

const DESCRIPTION = `Payment links (single payments and subscriptions), installment management and payment methods.

**Authentication.** Merchant endpoints (\`/api/*\`) take the \`Api-Token\` header (a UUID issued by the operator);
operator endpoints (\`/admin/*\`) take \`Authorization: Bearer <admin token>\`. Missing or invalid: 401.

**Errors** are \`application/problem+json\` (RFC 9457) with a stable \`code\` and \`errors[{path, message}]\`:
400 shape or format, 401 credentials, 404 not found (also another merchant's resource), 409 state conflict,
413 bulk limits, 422 merchant-configuration rules.

**Idempotency.** Every POST, PUT and PATCH under \`/api\` accepts an \`Idempotency-Key\` header. The first
response to a key is kept for 24 hours per merchant: the same request again returns that response (with
\`Idempotent-Replayed: true\`) without running it twice; the same key with another request is 422
\`IDEMPOTENCY_KEY_REUSED\`; a duplicate while the first is still running is 409 \`IDEMPOTENCY_IN_PROGRESS\`.

**Money.** Amounts are accepted as JSON numbers or decimal strings with at most two decimals and returned as
strings with two decimals (\`ammount\` in the link creation response is spelled with two m's, as in the spec).

**Payment link status codes (\`statusId\`):**

${PAYMENT_LINK_STATUS_TABLE}
`;

/** The OpenAPI 3.1 document of the public API, built from the same zod schemas that validate requests. */
export function buildOpenApiDocument(
  operations: ApiOperation[],
  options: { version?: string } = {},
): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const operation of operations) {
    paths[operation.path] ??= {};
    (paths[operation.path] as Record<string, JsonObject>)[operation.method] = operationObject(operation);
  }
  const tags = [...new Set(operations.flatMap((operation) => operation.tags))].map((name) => ({ name }));
  return {
    openapi: '3.1.1',
    info: {
      title: 'Recurring-Payment and Payment-Link Service',
      version: options.version ?? '1.9',
      description: DESCRIPTION,
    },
    servers: [{ url: '/' }],
    tags,
    paths,
    components: {
      schemas: { Problem: problemSchema },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retry safe: the first response to the key is kept 24 h per merchant and returned again for ' +
            'the same request; another request with the key is 422, a concurrent duplicate 409.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
          example: '5d2a8a0e-3b7c-4f61-9d0a-2c4e6b8f1a3d',
        },
      },
      securitySchemes: {
        apiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Api-Token',
          description: 'The merchant’s API token (a UUID issued by the operator).',
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The operator’s admin token (`ADMIN_TOKEN`).',
        },
      },
    },
  };
}
