import type { Clock } from '@payrail/time';
import type { AuditLogStore } from '../../ports/audit-log-store';
import type { ConsoleSessionStore } from '../../ports/console-session-store';
import type { ConsoleUserStore } from '../../ports/console-user-store';
import type { Mailer } from '../../ports/mailer';
import type { MerchantStore } from '../../ports/merchant-store';

/** Seals a TOTP secret at rest (the gateway's AES-256-GCM sealer, as for webhook secrets). */
export interface Sealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** What the console's people and the API's rights are given: stores, mail, the clock, where people come. */
export interface AccessDeps {
  users: ConsoleUserStore;
  sessions: ConsoleSessionStore;
  merchants: MerchantStore;
  audit: AuditLogStore;
  mailer: Mailer;
  clock: Clock;
  sealer: Sealer;
  /** The console's origin, for the links mailed (`PUBLIC_BASE_URL`). */
  publicBaseUrl: string;
}
