import type { LoginGrant } from '../domain/login-code';

export interface LoginCodeRepository {
  /**
   * Marks the code used and returns what it grants, atomically: of two concurrent calls with one code,
   * one gets the grant. Unknown, used, expired or another link's code: undefined.
   */
  consume(request: { codeHash: string; slug: string; now: Date }): Promise<LoginGrant | undefined>;
}
