/** One plain-text e-mail: a login code of the pay page, an invitation or a password reset of the console. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Where e-mail leaves a service: SMTP, or the development mailbox (`mailSetup`). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
