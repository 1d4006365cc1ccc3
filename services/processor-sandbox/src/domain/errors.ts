import { DomainError, type SandboxErrorCode } from '@payrail/contracts';

/**
 * processor-sandbox's domain errors: each code is one of `SANDBOX_ERRORS` (`libs/contracts`), the table
 * `service.ts` gives the app. The simulated processors answer in their own shapes (a form shown again, the
 * test API's `{"error": …}`), which their routes write; the table answers one that reaches the app.
 */
export abstract class SandboxError extends DomainError<SandboxErrorCode> {}

/** Why a typed card was refused, for the form to say it in the developer's language. */
export type CardInputProblem =
  | 'expiry-format'
  | 'expiry-month'
  | 'expired'
  | 'number-digits'
  | 'not-a-test-card'
  | 'cvv-digits';

/** A card typed wrong; the message (English) is the test API's, `problem` what a form says. */
export class CardInputError extends SandboxError {
  constructor(
    readonly problem: CardInputProblem,
    message: string,
  ) {
    super('CARD_INPUT_INVALID', message);
  }
}
