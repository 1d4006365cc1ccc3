import { createTransport } from 'nodemailer';
import type { Mailer } from '../../ports/mailer';

/** Sends through the SMTP server of `SMTP_URL` (`smtp://user:pass@host:587`, `smtps://...` for TLS). */
export function smtpMailer(options: { url: string; from: string }): Mailer {
  const transport = createTransport(options.url);
  return {
    async send(message) {
      await transport.sendMail({
        from: options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
    },
  };
}
