import type { LoginGrant } from '../domain/login-code';
import type { LoginCodeRepository } from '../ports/login-code-repository';
import { hashLoginCode } from './login-codes';
import type { Clock } from '@payrail/time';

export interface ConsumeLoginCodeDeps {
  loginCodes: LoginCodeRepository;
  clock: Clock;
}

/**
 * The pay page's side of spec 4.2: the code in `?login=` opens that user's session once. A second
 * use, an expired code or a code for another link grants nothing.
 */
export async function consumeLoginCode(
  deps: ConsumeLoginCodeDeps,
  request: { slug: string; code: string },
): Promise<LoginGrant | undefined> {
  if (!request.code) return undefined;
  return deps.loginCodes.consume({
    codeHash: hashLoginCode(request.code),
    slug: request.slug,
    now: deps.clock.now(),
  });
}
