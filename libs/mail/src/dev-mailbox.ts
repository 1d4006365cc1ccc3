import type { Clock } from '@payrail/time';
import type { Mailer, MailMessage } from './mailer';

/** What `GET /dev/mailbox` shows of one message. */
export interface MailboxEntry extends MailMessage {
  /** ISO 8601, UTC. */
  sentAt: string;
}

export interface DevMailbox extends Mailer {
  /** Newest first. */
  messages(): MailboxEntry[];
}

/** Only the latest messages are kept: the mailbox is for reading a code just sent, not an archive. */
export const DEV_MAILBOX_CAPACITY = 200;

/**
 * The development mailbox: messages are kept in this process's memory (gone on restart) instead of
 * being delivered, so that a developer or a test reads a login code or an invitation at `GET /dev/mailbox`.
 */
export function createDevMailbox(clock: Clock, capacity = DEV_MAILBOX_CAPACITY): DevMailbox {
  const kept: MailboxEntry[] = [];
  return {
    async send(message) {
      kept.unshift({
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html ? { html: message.html } : {}),
        ...(message.fromName ? { fromName: message.fromName } : {}),
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
        ...(message.headers ? { headers: message.headers } : {}),
        sentAt: clock.now().toISOString(),
      });
      if (kept.length > capacity) kept.length = capacity;
    },
    messages: () => kept.map((entry) => ({ ...entry })),
  };
}
