export { mailEnvFields, mailEnvRules } from './config';
export { createDevMailbox, DEV_MAILBOX_CAPACITY, type DevMailbox, type MailboxEntry } from './dev-mailbox';
export { type MailSettings, type MailSetup, MailUnavailable, mailSetup } from './mail-setup';
export type { Mailer, MailMessage } from './mailer';
export { addressOf, smtpMailer } from './smtp-mailer';
