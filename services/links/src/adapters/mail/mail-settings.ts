import { ConfigError, parseConfig } from '@payrail/config';
import type { Clock } from '@payrail/time';
import { z } from 'zod';
import type { Mailer } from '../../ports/mailer';
import { createDevMailbox, type DevMailbox } from './dev-mailbox';
import { smtpMailer } from './smtp-mailer';

const mailEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().default('payrail <no-reply@payrail.invalid>'),
  /** Unset: on in the embedded system, off when the service runs as its own process. */
  DEV_MAILBOX: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true' || value === '1')),
});

/** Thrown by `send` when no way of sending mail is configured: the page says it cannot send codes. */
export class MailUnavailable extends Error {
  constructor() {
    super('no mail transport configured (set SMTP_URL)');
    this.name = 'MailUnavailable';
  }
}

export interface MailSetup {
  mailer: Mailer;
  /** Present when the development mailbox is on: what `GET /dev/mailbox` shows. */
  mailbox: DevMailbox | undefined;
  /** For the start log: `smtp`, `dev-mailbox`, both, or `none`. */
  describe: string;
}

/**
 * Which way mail leaves: SMTP when `SMTP_URL` is set; the development mailbox when `DEV_MAILBOX=true`, or
 * when unset in the embedded system. `NODE_ENV=production` refuses the mailbox (a start error): it would
 * publish every login code. With both, SMTP delivers and the mailbox keeps a copy.
 */
export function mailSetupFromEnv(
  environment: Record<string, string | undefined>,
  options: { embedded: boolean; clock: Clock },
): MailSetup {
  const config = parseConfig(mailEnvSchema, environment);
  const production = config.NODE_ENV === 'production';
  if (production && config.DEV_MAILBOX === true) {
    throw new ConfigError(
      'Invalid environment:\n  DEV_MAILBOX: the development mailbox shows every login code and is refused when NODE_ENV=production; set SMTP_URL instead',
      ['DEV_MAILBOX'],
    );
  }
  const mailboxOn = !production && (config.DEV_MAILBOX ?? (options.embedded && !config.SMTP_URL));
  const mailbox = mailboxOn ? createDevMailbox(options.clock) : undefined;
  const smtp = config.SMTP_URL ? smtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM }) : undefined;
  const transports = [smtp, mailbox].filter((mailer): mailer is Mailer => mailer !== undefined);
  return {
    mailbox,
    describe: [smtp && 'smtp', mailbox && 'dev-mailbox'].filter(Boolean).join('+') || 'none',
    mailer: {
      async send(message) {
        if (transports.length === 0) throw new MailUnavailable();
        for (const transport of transports) await transport.send(message);
      },
    },
  };
}
