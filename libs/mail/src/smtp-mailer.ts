import type { Mailer } from './mailer';

/**
 * Sends through the SMTP server of `SMTP_URL` (`smtp://user:pass@host:587`, `smtps://...` for TLS).
 * nodemailer is loaded with the first mail, not at start: most runs send none.
 */
export function smtpMailer(options: { url: string; from: string }): Mailer {
  let transport: Promise<import('nodemailer').Transporter> | undefined;
  return {
    async send(message) {
      transport ??= import('nodemailer').then(({ createTransport }) => createTransport(options.url));
      await (await transport).sendMail({
        from: options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
    },
  };
}
