import http from 'node:http';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { listen } from '../src/lifecycle';

/** One GET over `agent`: its status and its `connection` header. */
function get(port: number, agent: http.Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent }, (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
        );
      })
      .on('error', reject);
  });
}

describe('listen: a graceful close under kept-alive traffic', () => {
  it('finishes while a caller keeps sending on its kept-alive connection, answering with Connection: close', async () => {
    // Resolved by the next request to reach the handler once `closeSoon` is set: closing then is closing
    // with a request in flight (closing between two requests would find the connection idle and close it).
    let closeSoon: (() => void) | undefined;
    const app = new Hono().get('/', async (c) => {
      closeSoon?.();
      await new Promise((resolve) => setTimeout(resolve, 20));
      return c.text('ok');
    });
    const server = await listen(app, 0, '127.0.0.1');
    // One socket, kept alive: what another service's pool or a load balancer holds.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const answers: Array<{ status: number; connection: string | undefined }> = [];
    let sending = true;
    const caller = (async () => {
      while (sending) {
        try {
          answers.push(await get(server.port, agent));
        } catch {
          // refused once the server is closed: the caller would go to another replica
          break;
        }
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise<void>((resolve) => {
      closeSoon = resolve;
    });
    const closing = Date.now();
    // Without the fix the busy connection carried request after request and close() never finished.
    const closed = await Promise.race([
      server.close().then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3_000)),
    ]);
    sending = false;
    await caller;
    agent.destroy();
    expect(closed).toBe(true);
    expect(Date.now() - closing).toBeLessThan(3_000);
    expect(answers.length).toBeGreaterThan(2);
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    // The answer in flight when closing told the caller not to reuse the connection.
    expect(answers.at(-1)?.connection).toBe('close');
  });
});
