import type { MerchantContext } from '@payrail/contracts';
import { emailKey } from '../domain/customer';
import { loginCodeExpiry } from '../domain/login-code';
import { checkMerchantRules, checkSignedInUserAllowed } from '../domain/merchant-rules';
import type { PaymentLink } from '../domain/payment-link';
import { linkDraft, type PaymentLinkInput } from './create-payment-link';
import { linkCreatedEvent } from './events';
import { hashLoginCode } from './login-codes';
import type { CreatePaymentLinkDeps } from './deps';

export interface SignedInUserLinkInput extends Omit<PaymentLinkInput, 'paymentMethods'> {
  signedInUser: { email: string; firstName: string; lastName: string };
}

export interface CreateSignedInUserLinkDeps extends CreatePaymentLinkDeps {
  /** A fresh random login code, unguessable (it opens a session). */
  newLoginCode(): string;
}

export interface SignedInUserLink {
  link: PaymentLink;
  customerId: number;
  /** The clear code, for the link's URL only: what is stored is its hash. */
  loginCode: string;
}

/**
 * Spec 4.2: the merchant names the user already signed in at its application; the user is found by
 * e-mail or created and activated, and the link carries a single-use login code for that user.
 */
export async function createSignedInUserLink(
  deps: CreateSignedInUserLinkDeps,
  merchant: MerchantContext,
  input: SignedInUserLinkInput,
): Promise<SignedInUserLink> {
  checkSignedInUserAllowed(merchant);
  checkMerchantRules(merchant, input);
  const now = deps.clock.now();
  const draft = linkDraft(merchant, input, deps.newSlug(), now);
  const loginCode = deps.newLoginCode();
  const { link, customerId } = await deps.links.createForSignedInUser(
    {
      draft,
      user: {
        email: input.signedInUser.email.trim(),
        emailKey: emailKey(input.signedInUser.email),
        firstName: input.signedInUser.firstName,
        lastName: input.signedInUser.lastName,
      },
      loginCode: { codeHash: hashLoginCode(loginCode), expiresAt: loginCodeExpiry(now, draft.expiresAt) },
    },
    (created) => linkCreatedEvent(created, merchant, now),
  );
  return { link, customerId, loginCode };
}
