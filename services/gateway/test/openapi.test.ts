import {
  accessOperations,
  type ApiOperation,
  apiOperations,
  WEBHOOK_EVENT_KINDS,
  webhookEnvelope,
  merchantProfileOperations,
  webhookOperations,
} from '@payrail/contracts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { ownerOf } from '../src/adapters/http/forward';
import { buildOpenApiDocument, takesIdempotencyKey } from '../src/adapters/http/openapi';

type Json = Record<string, unknown>;
const document = buildOpenApiDocument(apiOperations);
const paths = document.paths as Record<string, Record<string, Json>>;
const operationIn = (operation: ApiOperation) => paths[operation.path]?.[operation.method];

describe('/openapi.json', () => {
  it('validates as OpenAPI 3.1', async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\.1\./);
  });

  it('a broken document fails the same validation (the check can fail)', async () => {
    const broken = structuredClone(document) as Json;
    (broken.paths as Json)['/api/saleitems/add'] = { post: { responses: 'none' } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('lists every endpoint of the API registry, under its method and path', () => {
    expect(apiOperations.length).toBeGreaterThan(0);
    for (const operation of apiOperations) {
      expect(operationIn(operation), `${operation.method} ${operation.path}`).toBeDefined();
      expect(operationIn(operation)?.operationId).toBe(operation.operationId);
    }
    const listed = Object.values(paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
    expect(listed).toBe(apiOperations.length);
  });

  it('has unique operation ids', () => {
    const ids = apiOperations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("routes every merchant endpoint to a service behind the gateway, or is the gateway's own (webhooks, access, the merchant's profile)", () => {
    const own = new Set([...webhookOperations, ...accessOperations, ...merchantProfileOperations]);
    for (const operation of apiOperations.filter((o) => o.path.startsWith('/api/') && !own.has(o))) {
      expect(ownerOf(operation.path.replace(/\{[^}]+\}/g, '1')), operation.path).toBeDefined();
    }
    for (const operation of [...webhookOperations, ...accessOperations])
      expect(ownerOf(operation.path), operation.path).toBeUndefined();
  });

  it('documents every webhook event kind in the webhooks section, with an example envelope', () => {
    const webhooks = (document as { webhooks: Record<string, Json> }).webhooks;
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_KINDS].sort());
    for (const kind of WEBHOOK_EVENT_KINDS) {
      const example = (
        webhooks[kind] as { post: { requestBody: { content: Record<string, { example: Json }> } } }
      ).post.requestBody.content['application/json']?.example;
      expect(webhookEnvelope.safeParse(example).success, kind).toBe(true);
      expect(example?.event).toBe(kind);
    }
  });

  it('gives each endpoint a request example (when it takes a body) and a success response example', () => {
    for (const operation of apiOperations) {
      const name = `${operation.method} ${operation.path}`;
      const object = operationIn(operation) as Json;
      if (operation.requestBody) {
        const media = (object.requestBody as Json & { content: Record<string, Json> }).content[
          'application/json'
        ];
        expect(media?.example ?? media?.examples, name).toBeDefined();
      }
      const responses = object.responses as Record<string, Json & { content?: Record<string, Json> }>;
      const success = Object.entries(responses).filter(([status]) => Number(status) < 300);
      expect(success.length, name).toBeGreaterThan(0);
      for (const [status, response] of success) {
        if (status === '204') continue;
        const media = response.content?.['application/json'];
        expect(media?.example ?? media?.examples, `${name} ${status}`).toBeDefined();
      }
    }
  });

  it('declares the security of each endpoint: Api-Token for /api, bearer for /admin', () => {
    expect((document.components as Json).securitySchemes).toEqual({
      apiToken: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Api-Token' }),
      adminToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      webhookSignature: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'webhook-signature' }),
    });
    for (const operation of apiOperations) {
      const expected = operation.path.startsWith('/admin/') ? 'adminToken' : 'apiToken';
      expect(operationIn(operation)?.security, operation.path).toEqual([{ [expected]: [] }]);
      expect((operationIn(operation)?.responses as Json | undefined)?.['401'], operation.path).toBeDefined();
    }
  });

  it('says how each webhook is signed: the Standard Webhooks signature, a security scheme of its own', () => {
    const scheme = (document.components as { securitySchemes: Record<string, Json> }).securitySchemes
      .webhookSignature;
    expect(scheme?.description).toMatch(/HMAC-SHA256/);
    const webhooks = (document as { webhooks: Record<string, { post: Json }> }).webhooks;
    for (const kind of WEBHOOK_EVENT_KINDS) {
      expect(webhooks[kind]?.post.security, kind).toEqual([{ webhookSignature: [] }]);
    }
  });

  it('describes every tag and names the license', () => {
    const tags = document.tags as Array<{ name: string; description?: string }>;
    expect(tags.map((tag) => tag.name).sort()).toEqual(
      [...new Set(apiOperations.flatMap((operation) => operation.tags))].sort(),
    );
    for (const tag of tags) expect(tag.description, tag.name).toMatch(/\w/);
    expect((document.info as Json).license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('says where the example story pays a link, in words and for the replay (`x-story-pays-first`)', () => {
    const paying = apiOperations.filter((operation) => operation.storyPaysFirst?.length);
    expect(paying.map((operation) => operation.operationId)).toEqual(['getPaymentLink']);
    for (const operation of paying) {
      const object = operationIn(operation) as Json;
      expect(object['x-story-pays-first']).toEqual([...(operation.storyPaysFirst ?? [])]);
      expect(object.description).toMatch(
        /before this step the customer pays links 2 and 3 on the pay page, one after the other/,
      );
    }
  });

  it('gives path parameters examples of the type their schema says', () => {
    for (const methods of Object.values(paths)) {
      for (const operation of Object.values(methods)) {
        const parameters = (operation.parameters ?? []) as Array<Json & { schema?: Json }>;
        for (const parameter of parameters.filter((p) => p.in === 'path' && p.schema?.type === 'string')) {
          // One example, or one for each request example that names its own (`examples`).
          const named = Object.values((parameter.examples ?? {}) as Record<string, { value: unknown }>);
          const values = parameter.example === undefined ? named.map((e) => e.value) : [parameter.example];
          expect(values.length, `${operation.operationId} ${parameter.name}`).toBeGreaterThan(0);
          for (const value of values)
            expect(typeof value, `${operation.operationId} ${parameter.name}`).toBe('string');
        }
      }
    }
  });

  it('offers Idempotency-Key on every POST, PUT and PATCH of the merchant API', () => {
    const guarded = apiOperations.filter(
      (o) => o.path.startsWith('/api/') && ['post', 'put', 'patch'].includes(o.method),
    );
    expect(guarded.length).toBeGreaterThan(0);
    for (const operation of guarded) {
      expect(takesIdempotencyKey(operation)).toBe(true);
      const key = operation.idempotencyKey === 'required' ? 'IdempotencyKeyRequired' : 'IdempotencyKey';
      expect(operationIn(operation)?.parameters, operation.path).toContainEqual({
        $ref: `#/components/parameters/${key}`,
      });
    }
    const parameters = (document.components as { parameters: Record<string, Json> }).parameters;
    expect(parameters.IdempotencyKey).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
    });
    expect(parameters.IdempotencyKeyRequired).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
    });
  });

  it('requires Idempotency-Key where money is given back, and says so with its 400', () => {
    const required = apiOperations.filter((operation) => operation.idempotencyKey === 'required');
    expect(required.map((operation) => operation.operationId)).toEqual(['refundPayment']);
    const refund = paths['/api/payments/{id}/refunds']?.post as Json & { responses: Record<string, Json> };
    expect(JSON.stringify(refund.responses['400'])).toContain('IDEMPOTENCY_KEY_REQUIRED');
  });

  it('documents errors as problem+json and the statusId table', () => {
    const create = paths['/api/saleitems/add']?.post as Json & { responses: Record<string, Json> };
    for (const status of ['400', '401', '409', '422']) {
      expect(create.responses[status], status).toMatchObject({
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      });
    }
    const description = String((document.info as Json).description);
    for (const row of ['| 1 |', '| 5 |', '| 6 |', '| 7 |', '| 200 |', '| 9 |'])
      expect(description).toContain(row);
    expect(description).toContain('still payable');
  });

  it('describes request fields from the zod schemas (inputs as clients send them)', () => {
    const create = paths['/api/saleitems/add']?.post as Json & {
      requestBody: {
        content: Record<string, { schema: { required: string[]; properties: Record<string, Json> } }>;
      };
    };
    const schema = create.requestBody.content['application/json']?.schema;
    expect(schema?.required).toEqual(
      expect.arrayContaining([
        'label',
        'amount',
        'handleValue',
        'handleLabel',
        'singlePayment',
        'creditAndDebitCard',
      ]),
    );
    // Absent means false (design 5), so it is not required on input.
    expect(schema?.required).not.toContain('recurrentPayment');
    expect(schema?.properties.dayOfMonth).toMatchObject({
      anyOf: expect.arrayContaining([expect.objectContaining({ minimum: 1, maximum: 28 })]),
    });
  });
});
