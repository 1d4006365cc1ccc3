import { openApiDocument } from '@payrail/gateway';
import { describe, expect, it } from 'vitest';
import { lintOpenApi } from '../scripts/lint-openapi';

// `npm run lint:openapi` (a step of `npm test`): Redocly CLI's recommended rules on the document the
// gateway serves. It passes with no error and no warning, and a warning alone fails it, as an error does.

type Json = Record<string, unknown>;

describe('the OpenAPI lint (Redocly, recommended rules)', () => {
  it('passes the served document: no error, no warning', () => {
    const { ok, output } = lintOpenApi(openApiDocument(), 'node_modules/.cache/openapi/lint-test.json');
    expect(output).toContain('Your API description is valid');
    // Stylish problem lines: `line:column  severity  rule  message`.
    expect(output).not.toMatch(/^\s*\d+:\d+\s+(error|warning)\s/m);
    expect(ok, output).toBe(true);
  });

  it('fails on a warning alone (no license) and on an error (a webhook that says nothing of its signature)', () => {
    const unlicensed = structuredClone(openApiDocument()) as { info: Json };
    delete unlicensed.info.license;
    const warned = lintOpenApi(unlicensed, 'node_modules/.cache/openapi/lint-test-warning.json');
    expect(warned.output).toMatch(/^\s*\d+:\d+\s+warning\s+info-license/m);
    expect(warned.ok).toBe(false);

    const unsigned = structuredClone(openApiDocument()) as { webhooks: Record<string, { post: Json }> };
    delete unsigned.webhooks.PAYMENT_SUCCESS?.post.security;
    const failed = lintOpenApi(unsigned, 'node_modules/.cache/openapi/lint-test-error.json');
    expect(failed.output).toMatch(/^\s*\d+:\d+\s+error\s+security-defined/m);
    expect(failed.ok).toBe(false);
  });
});
