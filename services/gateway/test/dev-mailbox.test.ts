import { createDevMailbox } from '@payrail/mail';
import { simulatedClock } from '@payrail/time';
import { describe, expect, it } from 'vitest';
import { devMailboxRoute } from '../src/adapters/http/dev-mailbox';

describe("the gateway's GET /dev/mailbox", () => {
  it("shows links' internal mailbox as it answered: status, JSON, not cached", async () => {
    const asked: string[] = [];
    const mails = [{ to: 'a@example.com', subject: 's', text: '123456', sentAt: '2026-11-22T12:00:00.000Z' }];
    const route = devMailboxRoute(async (request) => {
      asked.push(new URL(request.url).pathname);
      return Response.json(mails);
    });
    const response = await route.request('/dev/mailbox');
    expect(asked).toEqual(['/internal/dev/mailbox']);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual(mails);
  });

  it("passes links' 404 on (mailbox off)", async () => {
    const route = devMailboxRoute(async () =>
      Response.json(
        { code: 'NOT_FOUND' },
        { status: 404, headers: { 'content-type': 'application/problem+json' } },
      ),
    );
    const response = await route.request('/dev/mailbox');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe("the gateway's own mail in GET /dev/mailbox", () => {
  const clock = simulatedClock(new Date('2026-11-22T12:00:00Z'));

  it("shows the gateway's invitations with links' codes, newest first", async () => {
    const own = createDevMailbox(clock);
    await own.send({ to: 'owner@example.com', subject: 'Invitación', text: 'http://x/console/invitation/t' });
    const links = [
      { to: 'a@example.com', subject: 'code', text: '123456', sentAt: '2026-11-22T12:00:01.000Z' },
    ];
    const response = await devMailboxRoute(async () => Response.json(links), own).request('/dev/mailbox');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(((await response.json()) as Array<{ to: string }>).map((mail) => mail.to)).toEqual([
      'a@example.com',
      'owner@example.com',
    ]);
  });

  it("links' mailbox off: the gateway's alone", async () => {
    const own = createDevMailbox(clock);
    await own.send({ to: 'owner@example.com', subject: 'Invitación', text: 'link' });
    const route = devMailboxRoute(async () => Response.json({ code: 'NOT_FOUND' }, { status: 404 }), own);
    const response = await route.request('/dev/mailbox');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { to: 'owner@example.com', subject: 'Invitación', text: 'link', sentAt: '2026-11-22T12:00:00.000Z' },
    ]);
  });
});
