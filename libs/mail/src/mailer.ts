/**
 * One e-mail: a login code of the pay page, an invitation or a password reset of the console (plain text),
 * or an e-mail to a merchant's customer (issue 29: HTML and plain text, the merchant's name as the sender's
 * name, replies to the merchant, a header naming its kind).
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The HTML alternative of `text`. */
  html?: string;
  /** The sender's display name; the address stays `MAIL_FROM`'s. */
  fromName?: string;
  /** Where replies go. */
  replyTo?: string;
  /** Extra headers, such as `X-Payrail-Email-Kind`. */
  headers?: Record<string, string>;
}

/** Where e-mail leaves a service: SMTP, or the development mailbox (`mailSetup`). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
