import {
  API_TOKEN_SCOPES,
  API_TAGS,
  type ApiOperation,
  ERROR_CODES,
  type ErrorCode,
  holdersOf,
  MERCHANT_ROLES,
  OPERATION_PERMISSIONS,
  PAYMENT_LINK_STATUS_TABLE,
  WEBHOOK_EVENT_KINDS,
  WEBHOOK_EXAMPLES,
  webhookEnvelope,
} from '@payrail/contracts';
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
      description: 'Stable error code; each operation lists the ones it answers.',
      enum: Object.keys(ERROR_CODES),
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

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Content',
  502: 'Bad Gateway',
};

const EXAMPLE_ID = { apiToken: '2', adminToken: '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10', none: '1' };

/** The field a 400 example names: the first the operation reads. */
function firstField(operation: ApiOperation): string {
  for (const schema of [operation.pathParams, operation.query, operation.requestBody?.schema]) {
    if (!schema) continue;
    const json = jsonSchemaOf(schema, 'input') as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    const name = json.required?.[0] ?? Object.keys(json.properties ?? {})[0];
    if (name) return name;
  }
  return '(body)';
}

function problemExample(code: ErrorCode, operation: ApiOperation): JsonObject {
  const info = ERROR_CODES[code];
  let detail: string = info.detail;
  let errors: Array<{ path: string; message: string }> = [];
  if (code === 'VALIDATION_ERROR') {
    const field = firstField(operation);
    detail = `${field} is required`;
    errors = [{ path: field, message: 'is required' }];
  } else if (code === 'UNAUTHORIZED' && operation.security === 'adminToken') {
    detail = 'Authorization: Bearer <admin token> missing or invalid';
  }
  return {
    type: `about:blank#${code}`,
    title: TITLES[info.status] ?? 'Error',
    status: info.status,
    code,
    detail,
    errors,
    requestId: '4b6f2a8e-0c1d-4e3f-9a5b-6c7d8e9f0a1b',
    instance: operation.path.replace(/\{[^}]+\}/g, EXAMPLE_ID[operation.security]),
  };
}

/** Every code the operation may answer: the ones its kind implies, then its own. */
export function errorCodesOf(operation: ApiOperation): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (operation.pathParams || operation.query || operation.requestBody) codes.add('VALIDATION_ERROR');
  if (operation.requestBody) {
    codes.add('MALFORMED_JSON');
    codes.add('PAYLOAD_TOO_LARGE');
  }
  if (operation.security !== 'none') codes.add('UNAUTHORIZED');
  if (operation.idempotencyKey === 'required') codes.add('IDEMPOTENCY_KEY_REQUIRED');
  if (takesIdempotencyKey(operation)) {
    codes.add('IDEMPOTENCY_IN_PROGRESS');
    codes.add('IDEMPOTENCY_KEY_REUSED');
    codes.add('IDEMPOTENCY_RESPONSE_UNAVAILABLE');
  }
  // Refused with 403 where some role or token scope lacks the operation's permission.
  const permission = OPERATION_PERMISSIONS[operation.operationId];
  if (permission && holdersOf(permission).length < MERCHANT_ROLES.length + API_TOKEN_SCOPES.length)
    codes.add('FORBIDDEN');
  for (const code of operation.errors ?? []) codes.add(code);
  return [...codes];
}

/** Who may call a merchant operation, for its description: its permission and the roles and scopes that have it. */
function permissionNote(operation: ApiOperation): string | undefined {
  const permission = OPERATION_PERMISSIONS[operation.operationId];
  if (!permission) return undefined;
  const holders = holdersOf(permission);
  const roles = holders.filter((holder) => (MERCHANT_ROLES as readonly string[]).includes(holder));
  const scopes = holders.filter((holder) => (API_TOKEN_SCOPES as readonly string[]).includes(holder));
  const list = (names: string[]) =>
    names.length > 0 ? names.map((name) => `\`${name}\``).join(', ') : 'none';
  return (
    `**Permission:** ${permission.area} (${permission.access}). Console roles: ${list(roles)}; API token ` +
    `scopes: ${list(scopes)}. Others get 403 \`FORBIDDEN\`.`
  );
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
        ...parameterExamplesOf(operation, name),
      });
    }
  };
  add('path', operation.pathParams);
  add('query', operation.query);
  if (takesIdempotencyKey(operation)) {
    const key = operation.idempotencyKey === 'required' ? 'IdempotencyKeyRequired' : 'IdempotencyKey';
    parameters.push({ $ref: `#/components/parameters/${key}` });
  }
  return parameters;
}

/**
 * A parameter's example: `example` (the `default` one), and, where request examples name their own value
 * of it (`parameterExamples.<example name>`), `examples` by those names (OpenAPI's parameter `examples`,
 * which the replay reads for the request example of the same name). The default is the first of them.
 */
function parameterExamplesOf(operation: ApiOperation, name: string): JsonObject {
  const byExample = Object.entries(operation.parameterExamples ?? {}).filter(
    ([example, values]) => example !== 'default' && values[name] !== undefined,
  );
  const fallback = operation.parameterExamples?.default?.[name];
  if (byExample.length === 0) return fallback === undefined ? {} : { example: fallback };
  return {
    examples: Object.fromEntries(byExample.map(([example, values]) => [example, { value: values[name] }])),
  };
}

/** Every POST, PUT and PATCH of the merchant API honours `Idempotency-Key` (the gateway enforces it on all). */
export function takesIdempotencyKey(operation: ApiOperation): boolean {
  return operation.security === 'apiToken' && ['post', 'put', 'patch'].includes(operation.method);
}

function responsesOf(operation: ApiOperation): JsonObject {
  const responses: Record<string, JsonObject> = {};
  for (const [status, declared] of Object.entries(operation.responses)) {
    if (!declared.schema) {
      responses[status] = { description: declared.description };
      continue;
    }
    const media: JsonObject = { schema: jsonSchemaOf(declared.schema, 'output') };
    if (declared.examples) media.examples = declared.examples;
    else if (declared.example !== undefined) media.example = declared.example;
    responses[status] = { description: declared.description, content: { 'application/json': media } };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(operation)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const examples: Record<string, { summary: string; value: JsonObject }> = {};
    for (const [name, code] of Object.entries(operation.exampleOutcomes ?? {})) {
      if (ERROR_CODES[code].status === status) {
        examples[name] = {
          summary: `The outcome of the "${name}" example`,
          value: problemExample(code, operation),
        };
      }
    }
    for (const code of codes) {
      examples[code] ??= { summary: ERROR_CODES[code].description, value: problemExample(code, operation) };
    }
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].description}`).join('\n\n'),
      content: { 'application/problem+json': { schema: PROBLEM_REF, examples } },
    };
  }
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** The processor sandbox's card that is always approved. */
const TEST_CARD = '4242 4242 4242 4242';

/** Where the example story needs a payment, the operation says who pays what, and how. */
function storyPaymentNote(operation: ApiOperation): string | undefined {
  const links = operation.storyPaysFirst ?? [];
  if (links.length === 0) return undefined;
  const named = links.map(String);
  if (named.length === 1) {
    return (
      `**In the example story**, before this step the customer pays link ${named[0]} on the pay page: open its ` +
      `\`publicPayUrl\`, confirm the document number, choose the card and type the sandbox's test card ${TEST_CARD} ` +
      '(any future expiry, any CVV).'
    );
  }
  return (
    `**In the example story**, before this step the customer pays links ${named.slice(0, -1).join(', ')} and ` +
    `${named.at(-1)} on the pay page, one after the other: open each one's \`publicPayUrl\`, confirm the ` +
    `document number, choose the card and type the sandbox's test card ${TEST_CARD} (any future expiry, any ` +
    'CVV). A subscription is active a moment after its first payment.'
  );
}

function operationObject(operation: ApiOperation): JsonObject {
  const result: JsonObject = {
    operationId: operation.operationId,
    summary: operation.summary,
    tags: operation.tags,
  };
  const description = [operation.description, permissionNote(operation), storyPaymentNote(operation)]
    .filter(Boolean)
    .join('\n\n');
  if (description) result.description = description;
  if (operation.storyPaysFirst?.length) result['x-story-pays-first'] = [...operation.storyPaysFirst];
  result.security = operation.security === 'none' ? [] : [{ [operation.security]: [] }];
  const parameters = parametersOf(operation);
  if (parameters.length > 0) result.parameters = parameters;
  if (operation.requestBody) {
    const media: JsonObject = { schema: jsonSchemaOf(operation.requestBody.schema, 'input') };
    if (operation.requestBody.examples) media.examples = operation.requestBody.examples;
    else media.example = operation.requestBody.example;
    result.requestBody = { required: true, content: { 'application/json': media } };
  }
  result.responses = responsesOf(operation);
  return result;
}

const DESCRIPTION = `Payment links (single payments and subscriptions), installment management and payment methods.

**Authentication.** Merchant endpoints (\`/api/*\`) take the \`Api-Token\` header (a UUID issued by the operator,
or made by the merchant with \`POST /api/api-tokens\`); operator endpoints (\`/admin/*\`) take
\`Authorization: Bearer <admin token>\`. Missing or invalid: 401.

**Permissions.** A token is \`full\` (every operation but the users of the console) or \`read-only\` (reads only);
the merchant console's users act through this same API with the rights of their role (\`owner\`, \`operations\`,
\`developer\`, \`viewer\`). Each merchant operation names the permission it needs and who has it; anyone else
gets 403 \`FORBIDDEN\`. Another merchant's object is 404, whatever the rights.

**Errors** are \`application/problem+json\` (RFC 9457) with a stable \`code\` and \`errors[{path, message}]\`:
400 shape or format (also a path parameter: \`errors[].path\` is \`id\`), 401 credentials, 403 permission, 404 not found (also
another merchant's resource), 405 a method the path does not have (with \`Allow\`), 409 state conflict, 413 bulk
limits or a body over the size limit (1 MiB by default), 422 rules of your account's configuration. Each
operation lists its codes. Every text field has a maximum length (\`maxLength\`); NUL characters and unpaired
UTF-16 surrogates are refused with 400, as are dates that do not exist (\`2026-02-30\`) or lie before 1900.

**Times** are ISO 8601 with the offset of your time zone (\`2026-11-23T09:00:00-03:00\`), except \`expireTime\` of
the signed-in-user link, which is \`yyyy-MM-dd HH:mm:ss\` in your time zone.

**The examples are one story**, for the demo merchant of a fresh \`npm start\` on 2026-11-23: paste them in the
order of this document and each answers as documented (a request example named like a response example has
that outcome). Where the story needs a payment, the operation says so: the customer pays the link on its pay
page with the sandbox's test card. Numeric ids (links, subscriptions, installments, transfers) are the ones a
fresh start gives; UUIDs (webhook endpoints and deliveries, events, merchants, tokens, billing runs) are new
in every account: use the ones your responses give. On another day the dates move with it: the first
installment falls on the day itself, the others as many months later as your day is after the story's.

**Idempotency.** Every POST, PUT and PATCH under \`/api\` accepts an \`Idempotency-Key\` header. The first
response to a key is kept for 24 hours per merchant: the same request again returns that response (with
\`Idempotent-Replayed: true\`) without running it twice; the same key with another request is 422
\`IDEMPOTENCY_KEY_REUSED\`; a duplicate while the first is still running is 409 \`IDEMPOTENCY_IN_PROGRESS\`.
An operation that gives money back (a refund) requires the key: 400 \`IDEMPOTENCY_KEY_REQUIRED\` without it.

**Money.** Amounts are accepted as JSON numbers or decimal strings with at most two decimals and returned as
strings with two decimals (\`ammount\` in the link creation response is spelled with two m's, as in the spec).

**Payment link status codes (\`statusId\`):**

${PAYMENT_LINK_STATUS_TABLE}
`;

/**
 * The OpenAPI 3.1 `webhooks` section: what a merchant's receiver gets, one entry per event kind, each
 * with an example envelope and the Standard Webhooks headers.
 */
function webhooksSection(): JsonObject {
  const headers = [
    ['webhook-id', 'The event id (`evt_...`): the same on every retry and replay; deduplicate on it.'],
    ['webhook-timestamp', 'Unix seconds when this attempt was signed.'],
    [
      'webhook-signature',
      '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` keyed with your secret; ' +
        'two, space separated, during a rotation overlap.',
    ],
  ].map(([name, description]) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  }));
  const section: Record<string, JsonObject> = {};
  for (const kind of WEBHOOK_EVENT_KINDS) {
    const example = WEBHOOK_EXAMPLES[kind];
    section[kind] = {
      post: {
        operationId: `webhook${kind}`,
        summary: `${kind}: ${example.summary}`,
        description:
          "Sent by POST (or PUT, as the endpoint is configured), with the endpoint's Basic or header " +
          'credentials. Answer any 2xx within 10 seconds; anything else is retried for 3 days.',
        tags: ['Webhooks'],
        security: [{ webhookSignature: [] }],
        parameters: headers,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: jsonSchemaOf(webhookEnvelope, 'output'),
              example: {
                id: 'evt_2c7b1f0e9d8a4b6c5e3f2a1d',
                event: kind,
                createdAt: '2026-12-05T09:00:00.000Z',
                data: example.data,
              },
            },
          },
        },
        responses: { '200': { description: 'Any 2xx: delivered.' } },
      },
    };
  }
  return section;
}

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
  const tagDescriptions: Record<string, string> = API_TAGS;
  const tags = [...new Set(operations.flatMap((operation) => operation.tags))].map((name) => ({
    name,
    ...(tagDescriptions[name] ? { description: tagDescriptions[name] } : {}),
  }));
  return {
    openapi: '3.1.1',
    info: {
      title: 'Recurring-Payment and Payment-Link Service',
      version: options.version ?? '1.9',
      description: DESCRIPTION,
      // No LICENSE file and no `license` in package.json: the project is published under MIT.
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    tags,
    paths,
    webhooks: webhooksSection(),
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
        IdempotencyKeyRequired: {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description:
            'Required here (400 `IDEMPOTENCY_KEY_REQUIRED` without it): the operation moves money, and the key ' +
            'makes it happen once. The same key again answers what the first request did; another request with ' +
            'the key is 422, a concurrent duplicate 409. Use a new key for each new operation.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
          example: '9b1f6c2e-4d3a-4e8b-a7c5-1f2e3d4c5b6a',
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
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description:
            'How a webhook receiver knows a delivery is ours (Standard Webhooks): `webhook-signature` is ' +
            '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the base64 part ' +
            'of the endpoint’s `whsec_` secret (two signatures, space separated, for 24 hours after a rotation). ' +
            'Recompute it over the raw body, compare in constant time, and refuse a `webhook-timestamp` more ' +
            'than a few minutes away from now. The endpoint’s own credentials (Basic or a header of its ' +
            'choosing), when configured, come along too.',
        },
      },
    },
  };
}
