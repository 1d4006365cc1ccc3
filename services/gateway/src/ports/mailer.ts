/** Where the console's invitations and reset links leave: SMTP, or the development mailbox (`libs/mail`). */
export type { Mailer, MailMessage } from '@payrail/mail';
