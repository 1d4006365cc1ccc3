import type { Clock } from '@payrail/time';
import type { PaymentLinkRepository } from '../ports/payment-link-repository';

/** What the link-creating use cases are given (the signed-in-user one adds its login codes). */
export interface CreatePaymentLinkDeps {
  links: PaymentLinkRepository;
  clock: Clock;
  newSlug(): string;
}
