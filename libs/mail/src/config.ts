import { z } from 'zod';

/**
 * The mail variables every service that sends mail reads (links' login codes, the gateway's invitations
 * and password resets), for its `config.ts` to extend its schema with; `mailEnvRules` goes in its
 * `superRefine`.
 */
export const mailEnvFields = {
  /** Mail leaves by SMTP when set: `smtp://user:pass@host:587`, `smtps://...` for TLS. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  /** The sender of the mail. */
  MAIL_FROM: z.string().default('payrail <no-reply@payrail.invalid>'),
  /** The development mailbox; unset: on in the embedded system without SMTP, off in a process of its own. */
  DEV_MAILBOX: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true' || value === '1')),
};

/** The development mailbox shows every code and invitation: refused under `NODE_ENV=production`. */
export function mailEnvRules(
  config: { NODE_ENV: string; DEV_MAILBOX?: boolean | undefined },
  ctx: z.RefinementCtx,
): void {
  if (config.DEV_MAILBOX === true && config.NODE_ENV === 'production') {
    ctx.addIssue({
      code: 'custom',
      path: ['DEV_MAILBOX'],
      message:
        'the development mailbox shows every code and invitation mailed and is refused when NODE_ENV=production; set SMTP_URL instead',
    });
  }
}
