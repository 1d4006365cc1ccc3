import type { Mailer } from './mailer';

/** The address of a `MAIL_FROM` such as `payrail <no-reply@payrail.invalid>` (or a bare address). */
export function addressOf(from: string): string {
  return /<([^>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
}

/**
 * Sends through the SMTP server of `SMTP_URL` (`smtp://user:pass@host:587`, `smtps://...` for TLS; nodemailer
 * upgrades with STARTTLS where the server offers it). nodemailer is loaded with the first mail, not at start:
 * most runs send none.
 */
export function smtpMailer(options: { url: string; from: string }): Mailer {
  let transport: Promise<import('nodemailer').Transporter> | undefined;
  return {
    async send(message) {
      transport ??= import('nodemailer').then(({ createTransport }) => createTransport(options.url));
      await (await transport).sendMail({
        // The merchant's name in front of our address: a customer knows who writes, and SPF/DKIM stay ours.
        from: message.fromName ? { name: message.fromName, address: addressOf(options.from) } : options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html ? { html: message.html } : {}),
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
        ...(message.headers ? { headers: message.headers } : {}),
      });
    },
  };
}
