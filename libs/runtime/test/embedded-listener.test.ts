import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@payrail/observability';
import { describe, expect, it } from 'vitest';
import { runEmbedded, type ServiceDefinition, systemClock } from '../src';

const instance = (text: string) => ({
  app: { fetch: () => new Response(text) },
  markNotReady: () => {},
  start: async () => {},
  stop: async () => {},
});

describe('embedded mode', () => {
  it('gives a service with embeddedListener its own origin, and tells the services after it where', async () => {
    let seenByGateway: string | undefined;
    const ownOrigin: ServiceDefinition = {
      name: 'processor-sandbox',
      defaultPort: 3005,
      loadConfig: () => ({}),
      embeddedListener: { port: () => 0, urlVariable: 'PROCESSOR_SANDBOX_URL' },
      create: async () => instance('own origin'),
    };
    const gateway: ServiceDefinition = {
      name: 'gateway',
      defaultPort: 3000,
      loadConfig: () => ({}),
      create: async ({ env }) => {
        seenByGateway = env.PROCESSOR_SANDBOX_URL;
        return instance('gateway');
      },
    };
    const system = await runEmbedded([ownOrigin, gateway], {
      dataDir: mkdtempSync(path.join(tmpdir(), 'embedded-listener-')),
      port: 0,
      internalSecret: 'test',
      env: {},
      logger: createLogger('test', 'silent'),
      clock: systemClock,
    });
    try {
      const listener = system.listeners.get('processor-sandbox');
      expect(listener?.port).toBeGreaterThan(0);
      expect(listener?.port).not.toBe(system.gateway.port);
      expect(seenByGateway).toBe(`http://localhost:${listener?.port}`);
      const answer = await fetch(`http://127.0.0.1:${listener?.port}/where`);
      expect(await answer.text()).toBe('own origin');
    } finally {
      await system.shutdown();
    }
    await expect(
      fetch(`http://127.0.0.1:${system.listeners.get('processor-sandbox')?.port}/where`),
    ).rejects.toThrow();
  });
});
