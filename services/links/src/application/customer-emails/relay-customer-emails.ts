import { DEFAULT_TIMEZONE } from '@payrail/contracts';
import type { Clock } from '@payrail/time';
import {
  ACTION_PLACEHOLDER,
  CARE_LINK_LIFETIME_MS,
  EMAIL_RETRY_WINDOW_MS,
  nextAttemptAt,
} from '../../domain/customer-email';
import type {
  CustomerEmailOutbox,
  CustomerEmailRow,
  CustomerEmailStore,
} from '../../ports/customer-email-store';
import type { Mailer } from '../../ports/mailer';
import type { MerchantProfiles } from '../../ports/merchant-profiles';
import { hashCareToken, newCareToken } from './care-links';
import { merchantNow } from './merchant-time';

/** E-mails of different customers sent at once, each on a connection of its own. */
const SENDS_AT_ONCE = 5;

export interface RelayDeps {
  outbox: CustomerEmailOutbox;
  emails: Pick<CustomerEmailStore, 'simulatedDay'>;
  merchants: Pick<MerchantProfiles, 'find'>;
  mailer: Mailer;
  clock: Clock;
  simulatedTime: boolean;
  secret: string;
  publicBaseUrl: string;
  /** `CUSTOMER_EMAIL_RETRY_SCHEDULE`: the waits after the 1st, 2nd, ... failed try (the last repeats). */
  retryScheduleMs: number[];
  /** How long a claimed e-mail is the relay's before another may take it (a crash mid-send). */
  leaseMs: number;
  batchSize: number;
}

/** What an SMTP failure may say in the log and the API: its code, never the server's text or an address. */
function failureOf(error: unknown): string {
  const e = error as { code?: unknown; responseCode?: unknown; name?: unknown };
  const code = typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'Error';
  return typeof e.responseCode === 'number' ? `${code} ${e.responseCode}` : code;
}

async function send(deps: RelayDeps, email: CustomerEmailRow): Promise<void> {
  let text = email.textBody;
  let html = email.htmlBody;
  if (email.actionSubscriptionId !== null) {
    // A new signed link for each try: a token exists only in a mail that left, and only its hash is kept.
    const token = newCareToken(deps.secret);
    const timezone = (await deps.merchants.find(email.merchantId))?.timezone ?? DEFAULT_TIMEZONE;
    const now = await merchantNow(deps, email.merchantId, timezone);
    await deps.outbox.saveCareLink({
      tokenHash: hashCareToken(token),
      merchantId: email.merchantId,
      customerId: email.customerId,
      subscriptionId: email.actionSubscriptionId,
      emailId: email.id,
      createdAt: deps.clock.now(),
      expiresAt: new Date(now.getTime() + CARE_LINK_LIFETIME_MS),
    });
    const url = `${deps.publicBaseUrl.replace(/\/$/, '')}/pay/care/${token}`;
    text = text.replaceAll(ACTION_PLACEHOLDER, url);
    html = html.replaceAll(ACTION_PLACEHOLDER, url);
  }
  await deps.mailer.send({
    to: email.recipient,
    subject: email.subject,
    text,
    html,
    fromName: email.fromName,
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    headers: { 'X-Payrail-Email-Kind': email.kind },
  });
}

/**
 * Sends what is due, each customer's e-mails in the order they were written, until nothing is due. A failed
 * try is tried again after the schedule's wait, for 3 days from the e-mail's creation, then `failed`. Sent
 * at least once: a crash between the server's "queued" and the mark sends it again after the lease.
 */
export async function relayCustomerEmails(deps: RelayDeps): Promise<{ sent: number; failed: number }> {
  let sent = 0;
  let failed = 0;
  for (let round = 0; round < 100; round += 1) {
    const now = deps.clock.now();
    const due = await deps.outbox.claimDue(now, new Date(now.getTime() + deps.leaseMs), deps.batchSize);
    if (due.length === 0) break;
    // A batch holds at most one e-mail per customer, so they may leave side by side.
    for (let first = 0; first < due.length; first += SENDS_AT_ONCE) {
      await Promise.all(
        due.slice(first, first + SENDS_AT_ONCE).map(async (email) => {
          try {
            await send(deps, email);
            await deps.outbox.markSent(email.id, deps.clock.now());
            sent += 1;
          } catch (error) {
            const at = deps.clock.now();
            const next = nextAttemptAt(
              email.createdAt,
              at,
              email.attempts,
              deps.retryScheduleMs,
              EMAIL_RETRY_WINDOW_MS,
            );
            await deps.outbox.markFailedAttempt(email.id, failureOf(error), next);
            failed += 1;
          }
        }),
      );
    }
    if (failed > 0) break;
  }
  return { sent, failed };
}
