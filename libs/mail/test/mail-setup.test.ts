import { ConfigError, parseConfig } from '@payrail/config';
import { simulatedClock } from '@payrail/time';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDevMailbox, MailUnavailable, mailEnvFields, mailEnvRules, mailSetup } from '../src';

const clock = simulatedClock(new Date('2026-11-22T12:00:00Z'));
// A service's config.ts in small: its NODE_ENV, the mail fields and their rule.
const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    ...mailEnvFields,
  })
  .superRefine(mailEnvRules);
const loadConfig = (env: Record<string, string>) => parseConfig(schema, env);
// As a service's `service.ts` does: the environment through its config, then the mail setup from its values.
const setup = (env: Record<string, string>, embedded: boolean) =>
  mailSetup(loadConfig(env), { embedded, clock });

describe('which way mail leaves', () => {
  it('embedded without SMTP_URL: the development mailbox', () => {
    expect(setup({}, true)).toMatchObject({ describe: 'dev-mailbox' });
    expect(setup({}, true).mailbox).toBeDefined();
  });

  it('a process of its own: no mailbox unless DEV_MAILBOX=true', () => {
    expect(setup({}, false).mailbox).toBeUndefined();
    expect(setup({ DEV_MAILBOX: 'true' }, false).mailbox).toBeDefined();
  });

  it('DEV_MAILBOX=false turns it off in the embedded system too', () => {
    expect(setup({ DEV_MAILBOX: 'false' }, true).mailbox).toBeUndefined();
  });

  it('SMTP_URL: SMTP, and the mailbox only when asked for as well', () => {
    expect(setup({ SMTP_URL: 'smtp://mail.test:2525' }, true)).toMatchObject({
      describe: 'smtp',
      mailbox: undefined,
    });
    expect(setup({ SMTP_URL: 'smtp://mail.test:2525', DEV_MAILBOX: 'true' }, false).describe).toBe(
      'smtp+dev-mailbox',
    );
  });

  it('NODE_ENV=production: DEV_MAILBOX=true refuses to start; unset, no mailbox even embedded', () => {
    expect(() => setup({ NODE_ENV: 'production', DEV_MAILBOX: 'true' }, true)).toThrow(ConfigError);
    expect(() => setup({ NODE_ENV: 'production', DEV_MAILBOX: 'true' }, true)).toThrow(/DEV_MAILBOX/);
    expect(setup({ NODE_ENV: 'production' }, true).mailbox).toBeUndefined();
  });

  it('a wrong SMTP_URL or DEV_MAILBOX value is named', () => {
    expect(() => setup({ SMTP_URL: 'mail.test' }, false)).toThrow(/SMTP_URL/);
    expect(() => setup({ DEV_MAILBOX: 'yes' }, false)).toThrow(/DEV_MAILBOX/);
  });

  it('with no way to send, sending fails as unavailable', async () => {
    await expect(setup({}, false).mailer.send({ to: 'a@b.c', subject: 's', text: 't' })).rejects.toThrow(
      MailUnavailable,
    );
  });
});

describe('the development mailbox', () => {
  it('shows the messages newest first, with when they were sent', async () => {
    const mailbox = createDevMailbox(clock);
    await mailbox.send({ to: 'a@example.com', subject: 'first', text: 'one' });
    clock.advance(1000);
    await mailbox.send({ to: 'b@example.com', subject: 'second', text: 'two' });
    expect(mailbox.messages()).toEqual([
      { to: 'b@example.com', subject: 'second', text: 'two', sentAt: '2026-11-22T12:00:01.000Z' },
      { to: 'a@example.com', subject: 'first', text: 'one', sentAt: '2026-11-22T12:00:00.000Z' },
    ]);
  });

  it('keeps only the latest messages', async () => {
    const mailbox = createDevMailbox(clock, 3);
    for (const n of [1, 2, 3, 4]) await mailbox.send({ to: `${n}@example.com`, subject: `${n}`, text: '' });
    expect(mailbox.messages().map((message) => message.subject)).toEqual(['4', '3', '2']);
  });
});
