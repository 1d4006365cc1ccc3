import net from 'node:net';
import { simulatedClock } from '@payrail/time';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '@payrail/config';
import { z } from 'zod';
import { mailEnvFields, mailSetup } from '../src';

const loadConfig = (env: Record<string, string>) =>
  parseConfig(z.object({ NODE_ENV: z.literal('test').default('test'), ...mailEnvFields }), env);

// A bare SMTP server on a free local port, enough of RFC 5321 for one client: it records what it was given.
interface Received {
  from: string;
  to: string[];
  data: string;
}
const received: Received[] = [];
let server: net.Server;
let port = 0;

beforeAll(async () => {
  server = net.createServer((socket) => {
    let buffer = '';
    let inData = false;
    let current: Received = { from: '', to: [], data: '' };
    socket.write('220 test.smtp ready\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let end = buffer.indexOf('\r\n');
      while (end >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(current);
            current = { from: '', to: [], data: '' };
            socket.write('250 queued\r\n');
          } else current.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
        } else if (/^(EHLO|HELO)/i.test(line)) socket.write('250 test.smtp\r\n');
        else if (/^MAIL FROM:/i.test(line)) {
          current.from = line.slice(10).trim();
          socket.write('250 ok\r\n');
        } else if (/^RCPT TO:/i.test(line)) {
          current.to.push(line.slice(8).trim());
          socket.write('250 ok\r\n');
        } else if (/^DATA/i.test(line)) {
          inData = true;
          socket.write('354 go on\r\n');
        } else if (/^QUIT/i.test(line)) {
          socket.end('221 bye\r\n');
        } else socket.write('250 ok\r\n');
        end = buffer.indexOf('\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('SMTP_URL: mail leaves by SMTP', () => {
  it('delivers the message to the server of SMTP_URL, from MAIL_FROM, and keeps no copy', async () => {
    const setup = mailSetup(
      loadConfig({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Pagos <pagos@shop.test>' }),
      { embedded: true, clock: simulatedClock(new Date('2026-11-22T12:00:00Z')) },
    );
    expect(setup.describe).toBe('smtp');
    expect(setup.mailbox).toBeUndefined();
    await setup.mailer.send({ to: 'ana@example.com', subject: 'Tu código', text: 'Tu código es 123456.' });
    expect(received).toHaveLength(1);
    expect(received[0]?.from).toContain('pagos@shop.test');
    expect(received[0]?.to).toEqual(['<ana@example.com>']);
    expect(received[0]?.data).toContain('Subject: =?UTF-8?Q?Tu_c=C3=B3digo?=');
    expect(received[0]?.data).toContain('123456');
  });

  it('a server that does not answer makes sending fail (the page then says it could not send)', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const setup = mailSetup(loadConfig({ SMTP_URL: `smtp://127.0.0.1:${closed}` }), {
      embedded: false,
      clock: simulatedClock(new Date()),
    });
    await expect(setup.mailer.send({ to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow();
  });
});
