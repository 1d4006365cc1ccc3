import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../../..');

/** Starts billing-scheduler as its own process, against addresses where nothing listens. */
function startBillingScheduler(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing',
    AMQP_URL: 'amqp://guest:guest@127.0.0.1:1',
    LOG_LEVEL: 'silent',
    ...env,
  };
  if (!('INTERNAL_SECRET' in env)) delete childEnv.INTERNAL_SECRET;
  if (!('NODE_ENV' in env)) delete childEnv.NODE_ENV;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'services/billing-scheduler/src/main.ts')],
      { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

describe('a service started as its own process', () => {
  it('refuses to start without INTERNAL_SECRET and says which variable', async () => {
    const { code, stderr } = await startBillingScheduler({});
    expect(code).toBe(1);
    expect(stderr).toContain('INTERNAL_SECRET');
    expect(stderr).toContain('development default is refused');
  }, 30_000);

  it('refuses the development default written out with NODE_ENV=production', async () => {
    const { code, stderr } = await startBillingScheduler({
      NODE_ENV: 'production',
      INTERNAL_SECRET: 'dev-internal-secret-change-me',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('INTERNAL_SECRET');
  }, 30_000);

  it("stops on a wrong variable of the service's own config.ts with one line naming it, before connecting", async () => {
    const { code, stderr } = await startBillingScheduler({
      INTERNAL_SECRET: 'a-secret-of-our-own-0123456789',
      BILLING_CLAIM_BATCH: '0',
      MAX_BODY_BYTES: 'lots',
    });
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Invalid environment: .*BILLING_CLAIM_BATCH/);
    expect(lines[0]).toContain('MAX_BODY_BYTES: must be a whole number of bytes from 1024 to 1073741824');
  }, 30_000);

  it('gets past the check with a secret of its own (and then fails on the unreachable database instead)', async () => {
    const { code, stderr, stdout } = await startBillingScheduler({
      INTERNAL_SECRET: 'a-secret-of-our-own-0123456789',
    });
    expect(code).not.toBe(0);
    expect(`${stderr}${stdout}`).not.toContain('INTERNAL_SECRET');
  }, 30_000);
});
