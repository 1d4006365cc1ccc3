import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { openDatabase } from '@payrail/db';
import { createTestDatabase, type TestDatabase } from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMerchantStore } from '../src/adapters/postgres/merchant-store';
import { hashToken } from '../src/application/api-tokens';
import { runCli } from '../src/cli';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('gateway_cli');
});
afterAll(async () => database?.drop());

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env: { DATABASE_URL: database.url },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, unknown> };
}

async function merchantForToken(token: string) {
  const handle = openDatabase({ url: database.url, max: 1 });
  try {
    return (await postgresMerchantStore(handle.db).findByTokenHash(hashToken(token)))?.merchant;
  } finally {
    await handle.close();
  }
}

describe('operator CLI', () => {
  it('creates a merchant on a fresh database and prints its token once', async () => {
    const created = await cli(
      'merchants',
      'create',
      '--name',
      'Gym',
      '--instance',
      'international',
      '--saas-contract',
      'true',
    );
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({
      name: 'Gym',
      instance: 'INTERNATIONAL',
      currency: 'USD',
      saasContract: true,
    });
    const token = String(created.json().apiToken);
    expect(await merchantForToken(token)).toMatchObject({
      merchantId: created.json().id,
      saasContract: true,
    });
  });

  it('reads, updates, issues and revokes like the admin API', async () => {
    const created = (await cli('merchants', 'create', '--name', 'Shop', '--instance', 'NATIONAL')).json();
    const id = String(created.id);
    const updated = await cli(
      'merchants',
      'update',
      id,
      '--callback-url',
      'https://shop.example.com/cb',
      '--no-login-enabled',
      'true',
    );
    expect(updated.json()).toMatchObject({
      callbackUrl: 'https://shop.example.com/cb',
      noLoginEnabled: true,
    });
    expect((await cli('merchants', 'get', id)).json()).toMatchObject({ id, noLoginEnabled: true });
    const issued = (await cli('tokens', 'issue', id)).json();
    expect(await merchantForToken(String(issued.apiToken))).toMatchObject({ merchantId: id });
    expect((await cli('tokens', 'revoke', id, String(issued.tokenId))).code).toBe(0);
    expect(await merchantForToken(String(issued.apiToken))).toBeUndefined();
    expect(await merchantForToken(String(created.apiToken))).toBeDefined();
    expect((await cli('merchants', 'get', id)).stdout).not.toContain(String(created.apiToken));
  });

  it.each([
    [['merchants', 'create', '--name', 'X', '--instance', 'NATIONAL', '--currency', 'USD'], 2, 'currency'],
    [['merchants', 'create', '--instance', 'NATIONAL'], 2, 'name'],
    [
      ['merchants', 'create', '--name', 'X', '--instance', 'NATIONAL', '--saas-contract', 'maybe'],
      2,
      'saas-contract',
    ],
    [['merchants', 'get', '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10'], 1, 'not found'],
    [['merchants', 'get', '42'], 1, 'not found'],
    [
      ['tokens', 'revoke', '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10', '0b6f3c52-8c1e-4a3e-9a55-2f4d1b7c9e10'],
      1,
      'not found',
    ],
    [['merchants', 'delete'], 2, 'unknown command'],
    [['--bogus'], 2, 'Unknown option'],
  ])('%j exits %i, saying %s', async (argv, code, message) => {
    const result = await cli(...argv);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('runs as `npm run admin` does (tsx services/gateway/src/cli.ts)', () => {
    const root = path.resolve(__dirname, '..', '..', '..');
    const output = execFileSync(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      [
        'services/gateway/src/cli.ts',
        'merchants',
        'create',
        '--name',
        'From shell',
        '--instance',
        'NATIONAL',
      ],
      { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: database.url } },
    );
    expect(JSON.parse(output)).toMatchObject({
      name: 'From shell',
      currency: 'PYG',
      apiToken: expect.any(String),
    });
  });
});
