import { ConfigError } from '@payrail/config';
import { describe, expect, it } from 'vitest';
import { listenOnSandboxPort, loadConfig, sandboxPort, sandboxSettings } from '../src/config';

describe("processor-sandbox's configuration (src/config.ts)", () => {
  it('gives the demo keys and sends to processor-gateway and the pay page by default', () => {
    expect(sandboxSettings(loadConfig({}))).toEqual({
      processorA: { publicKey: 'sandbox-a-public', privateKey: 'sandbox-a-private', webhookUrl: undefined },
      processorB: {
        publicKey: 'sandbox-b-public',
        privateKey: 'sandbox-b-private',
        notificationUrl: undefined,
        returnUrlTemplate: 'http://localhost:3000/pay/processor-b/return?hash=($hash)',
      },
    });
  });

  it('builds the return page from PUBLIC_BASE_URL, unless a template is given', () => {
    const fromBase = sandboxSettings(loadConfig({ PUBLIC_BASE_URL: 'http://pay.test/' }));
    expect(fromBase.processorB.returnUrlTemplate).toBe('http://pay.test/pay/processor-b/return?hash=($hash)');
    const given = sandboxSettings(
      loadConfig({
        PUBLIC_BASE_URL: 'http://pay.test',
        SANDBOX_PROCESSOR_B_RETURN_URL: 'http://shop.test/($hash)',
      }),
    );
    expect(given.processorB.returnUrlTemplate).toBe('http://shop.test/($hash)');
  });

  it('listens on SANDBOX_PORT in every mode: alone as PORT, embedded over gateway port + 5', () => {
    expect(sandboxPort({}, 3000)).toBe(3005);
    expect(sandboxPort({}, 0)).toBe(0);
    expect(sandboxPort({ SANDBOX_PORT: '4100' }, 3000)).toBe(4100);
    expect(sandboxPort({ SANDBOX_PORT: '0' }, 3000)).toBe(0);
    const alone: Record<string, string | undefined> = { SANDBOX_PORT: '4100', PORT: '3005' };
    listenOnSandboxPort(alone);
    expect(alone.PORT).toBe('4100');
    const unset: Record<string, string | undefined> = { PORT: '3005' };
    listenOnSandboxPort(unset);
    expect(unset.PORT).toBe('3005');
  });

  it.each([
    ['SANDBOX_PORT', 'abc'],
    ['SANDBOX_PROCESSOR_A_WEBHOOK_URL', 'not a url'],
  ])('refuses %s=%j, naming it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(
      expect.objectContaining({ constructor: ConfigError, variables: [variable] }),
    );
  });
});
