/** Where e-mail leaves the service: SMTP, or the development mailbox (`libs/mail`, set up in `service.ts`). */
export type { Mailer, MailMessage } from '@payrail/mail';
