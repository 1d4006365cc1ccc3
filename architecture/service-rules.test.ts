import path from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as contracts from '../libs/contracts/src/index';
import { checkService, checkServices, type RuleViolation, serviceNames } from './service-rules';

const root = path.resolve(__dirname, '..');
const libsDir = path.join(root, 'libs');
const errorTables = contracts as unknown as Record<string, unknown>;

const describeViolation = (violation: RuleViolation) =>
  `${violation.service}/${violation.file}: ${violation.rule}: ${violation.message}`;

describe('the rules every service keeps', () => {
  it('are kept by every service', () => {
    const violations = checkServices({ servicesDir: path.join(root, 'services'), libsDir, errorTables });
    expect(violations.map(describeViolation)).toEqual([]);
    expect(serviceNames(path.join(root, 'services'))).toContain('billing-scheduler');
  }, 60_000);
});

describe('each rule can fail (fixtures)', () => {
  const fixtures = path.join(__dirname, 'fixtures', 'services');
  const check = (service: string) =>
    checkService(service, { servicesDir: fixtures, libsDir, errorTables }).map(describeViolation);

  it('passes a service that keeps them', () => {
    expect(check('moved-well')).toEqual([]);
  }, 30_000);

  it('fails a service that breaks each of them', () => {
    const found = check('moved-badly');
    const expected = [
      // process-env: a variable of the handed environment, and process.env, outside src/config.ts
      'moved-badly/src/service.ts: process-env: reads env.ADMIN_TOKEN (line 6): only src/config.ts may',
      'moved-badly/src/service.ts: process-env: reads process.env (line 7): only src/config.ts may',
      // consumer-file: misnamed, two in one file, a consumer outside a consumer file, outside the unit of work
      'moved-badly/src/adapters/messaging/payments.consumer.ts: consumer-file: payments.consumer.ts is not named <action>-on-<event>.consumer.ts',
      'moved-badly/src/adapters/messaging/payments.consumer.ts: consumer-file: holds 2 consumers: one per file',
      'moved-badly/src/adapters/messaging/payments.consumer.ts: consumer-file: imports @payrail/db: a consumer runs in its unit of work',
      'moved-badly/src/adapters/messaging/payments.consumer.ts: consumer-file: uses idempotentConsumer: a consumer runs in its unit of work',
      'moved-badly/src/service.ts: consumer-file: defines a consumer outside src/adapters/messaging/*.consumer.ts',
      // error-table: a code outside the service's table, a class that is no DomainError, an untyped code
      "moved-badly/src/domain/errors.ts: error-table: LinkGone's code PAYMENT_LINK_NOT_FOUND is not in BILLING_ERRORS",
      "moved-badly/src/domain/errors.ts: error-table: Stray's code STRAY_CODE is not in BILLING_ERRORS",
      'moved-badly/src/domain/errors.ts: error-table: Plain extends Error, not DomainError: it has no code in the table',
      "moved-badly/src/domain/errors.ts: error-table: Loose's code is not typed as codes of a table",
    ];
    expect([...found].sort()).toEqual([...expected].sort());
  }, 30_000);
});

describe("each service's README", () => {
  const order = ['What it owns', 'Events in and out', 'Endpoints', 'Configuration', 'Tests'];

  it(`says, in the same order: ${order.join(', ')}`, () => {
    for (const service of serviceNames(path.join(root, 'services'))) {
      const readme = readFileSync(path.join(root, 'services', service, 'README.md'), 'utf8');
      const headings = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1] ?? '');
      const found = order.map((title) => headings.findIndex((heading) => heading.startsWith(title)));
      expect(found, `${service}: ${headings.join(' | ')}`).not.toContain(-1);
      expect(found, `${service}: ${headings.join(' | ')}`).toEqual([...found].sort((a, b) => a - b));
    }
  });
});
