/** One plain-text e-mail (the login codes are all the pay pages send). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Where e-mail leaves the service: SMTP, or the development mailbox (see `adapters/mail`). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
