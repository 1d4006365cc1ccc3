import type { Clock } from '@payrail/time';
import { createDevMailbox, type DevMailbox } from './dev-mailbox';
import type { Mailer } from './mailer';
import { smtpMailer } from './smtp-mailer';

/** Thrown by `send` when no way of sending mail is configured: the page says it cannot send. */
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

/** What the mail setup reads of a service's configuration (`mailEnvFields`, parsed by its `config.ts`). */
export interface MailSettings {
  NODE_ENV: 'development' | 'test' | 'production';
  SMTP_URL?: string | undefined;
  MAIL_FROM: string;
  DEV_MAILBOX?: boolean | undefined;
}

/**
 * Which way mail leaves: SMTP when `SMTP_URL` is set; the development mailbox when `DEV_MAILBOX=true`, or
 * when unset in the embedded system. `NODE_ENV=production` never has the mailbox (`mailEnvRules` refuses
 * `DEV_MAILBOX=true` there: it would publish every code and invitation). With both, SMTP delivers and the
 * mailbox keeps a copy.
 */
export function mailSetup(config: MailSettings, options: { embedded: boolean; clock: Clock }): MailSetup {
  const production = config.NODE_ENV === 'production';
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
