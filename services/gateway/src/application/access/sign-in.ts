import {
  isLocked,
  PARTIAL_SESSION_MS,
  type PasswordProblem,
  passwordProblem,
  RECOVERY_CODE_COUNT,
  RESET_VALID_MS,
  SESSION_IDLE_MS,
  SESSION_TOUCH_MS,
} from '../../domain/access/rules';
import type { ConsoleSessionRecord, SessionStage } from '../../ports/console-session-store';
import type { ConsoleUserRecord } from '../../ports/console-user-store';
import type { AccessDeps } from './deps';
import { hashPassword, isCommonPassword, UNMATCHABLE_HASH, verifyPassword } from './passwords';
import { hashRecoveryCode, hashSecret, newRecoveryCode, newSecretToken } from './secrets';
import { acceptedStep, newTotpSecret, otpauthUri } from './totp';

/** A session given to a browser: the cookie's value (only its hash is stored). */
export interface IssuedSession {
  token: string;
  stage: SessionStage;
}

async function issueSession(
  deps: AccessDeps,
  userId: string,
  stage: SessionStage,
  clientAddress: string | null,
): Promise<IssuedSession> {
  const token = newSecretToken();
  await deps.sessions.create({
    tokenHash: hashSecret(token),
    userId,
    stage,
    at: deps.clock.now(),
    clientAddress,
  });
  return { token, stage };
}

/** The session of a cookie, if it is alive: not idle for 30 minutes, a partial one not older than 10. */
export async function sessionOf(
  deps: AccessDeps,
  token: string | undefined,
): Promise<ConsoleSessionRecord | undefined> {
  if (!token || !/^[\w-]{43}$/.test(token)) return undefined;
  const session = await deps.sessions.find(hashSecret(token));
  if (!session) return undefined;
  const now = deps.clock.now();
  const idle = now.getTime() - session.lastSeenAt.getTime() >= SESSION_IDLE_MS;
  const partialTooOld =
    session.stage !== 'full' && now.getTime() - session.createdAt.getTime() >= PARTIAL_SESSION_MS;
  if (idle || partialTooOld) {
    await deps.sessions.end(session.tokenHash);
    return undefined;
  }
  if (now.getTime() - session.lastSeenAt.getTime() >= SESSION_TOUCH_MS)
    await deps.sessions.touch(session.tokenHash, now);
  return session;
}

/** Sessions idle for 30 minutes, and partial ones older than 10, are deleted (with the hourly purge). */
export async function purgeEndedSessions(deps: Pick<AccessDeps, 'sessions' | 'clock'>): Promise<number> {
  const now = deps.clock.now().getTime();
  return deps.sessions.deleteExpired(new Date(now - SESSION_IDLE_MS), new Date(now - PARTIAL_SESSION_MS));
}

export async function endSession(deps: AccessDeps, token: string | undefined): Promise<void> {
  if (token) await deps.sessions.end(hashSecret(token));
}

export type SignInOutcome =
  | { outcome: 'signed-in'; session: IssuedSession; user: ConsoleUserRecord }
  | { outcome: 'second-factor'; session: IssuedSession }
  | { outcome: 'invalid' }
  | { outcome: 'locked'; until: Date };

/**
 * E-mail and password. A wrong one counts toward the lock (5 in a row: 15 minutes); a locked account is
 * refused whatever the password. An unknown address costs the same hashing, so it cannot be told apart by
 * time. Right, the browser gets a new session (never one it had before): a full one, or one that only
 * waits for the second factor.
 */
export async function signIn(
  deps: AccessDeps,
  request: { email: string; password: string; clientAddress: string | null; previousSession?: string },
): Promise<SignInOutcome> {
  const user = await deps.users.findByEmail(request.email.trim().toLowerCase());
  const now = deps.clock.now();
  if (user && isLocked(user.lockedUntil, now)) return { outcome: 'locked', until: user.lockedUntil as Date };
  const matches = await verifyPassword(request.password, user?.passwordHash ?? UNMATCHABLE_HASH);
  if (!user?.passwordHash) return { outcome: 'invalid' };
  if (!matches) {
    const lockedUntil = await deps.users.recordFailure(user.id, now);
    return lockedUntil ? { outcome: 'locked', until: lockedUntil } : { outcome: 'invalid' };
  }
  await endSession(deps, request.previousSession);
  if (user.totpEnabledAt) {
    return {
      outcome: 'second-factor',
      session: await issueSession(deps, user.id, 'totp', request.clientAddress),
    };
  }
  await deps.users.recordLogin(user.id, now);
  return {
    outcome: 'signed-in',
    session: await issueSession(deps, user.id, 'full', request.clientAddress),
    user,
  };
}

/**
 * The second factor of a sign-in: a TOTP code (each time step once) or a recovery code (each once). A wrong
 * one counts toward the lock as a wrong password does. Right, the session is replaced by a new, full one.
 */
export async function completeSignIn(
  deps: AccessDeps,
  session: ConsoleSessionRecord,
  code: string,
  clientAddress: string | null,
): Promise<SignInOutcome> {
  const user = session.user;
  const now = deps.clock.now();
  if (isLocked(user.lockedUntil, now)) {
    await deps.sessions.end(session.tokenHash);
    return { outcome: 'locked', until: user.lockedUntil as Date };
  }
  if (!(await secondFactorAccepted(deps, user, code))) {
    const lockedUntil = await deps.users.recordFailure(user.id, now);
    if (lockedUntil) {
      await deps.sessions.end(session.tokenHash);
      return { outcome: 'locked', until: lockedUntil };
    }
    return { outcome: 'invalid' };
  }
  await deps.sessions.end(session.tokenHash);
  await deps.users.recordLogin(user.id, now);
  return { outcome: 'signed-in', session: await issueSession(deps, user.id, 'full', clientAddress), user };
}

async function secondFactorAccepted(
  deps: AccessDeps,
  user: ConsoleUserRecord,
  code: string,
): Promise<boolean> {
  if (!user.totpSecretSealed || !user.totpEnabledAt) return false;
  const digits = code.replace(/\s/g, '');
  if (/^\d{6}$/.test(digits)) {
    const step = acceptedStep(
      deps.sealer.open(user.totpSecretSealed),
      digits,
      deps.clock.now(),
      user.totpLastStep,
    );
    return step !== undefined && (await deps.users.useTotpStep(user.id, step));
  }
  return deps.users.useRecoveryCode(user.id, hashRecoveryCode(code), deps.clock.now());
}

// ---------------------------------------------------------------------------------------------------
// Invitations, resets, passwords.

/** The invited user of a link still valid, for the page that asks for a password (the link is not used yet). */
export async function invitedUser(deps: AccessDeps, token: string): Promise<ConsoleUserRecord | undefined> {
  const userId = await deps.users.peekLink(hashSecret(token), 'invitation', deps.clock.now());
  const user = userId ? await deps.users.find(userId) : undefined;
  return user && user.passwordHash === null ? user : undefined;
}

export type PasswordOutcome =
  | { outcome: 'done'; session: IssuedSession; user: ConsoleUserRecord }
  | { outcome: 'refused'; problem: PasswordProblem }
  | { outcome: 'link-invalid' };

/**
 * Accepts an invitation: the password chosen (checked), the link used up, and a session that may only set
 * up the second factor (or skip it) before signing in.
 */
export async function acceptInvitation(
  deps: AccessDeps,
  token: string,
  request: { password: string; confirmation: string; name?: string; clientAddress: string | null },
): Promise<PasswordOutcome> {
  if (!(await invitedUser(deps, token))) return { outcome: 'link-invalid' };
  const problem = passwordProblem(request.password, request.confirmation, isCommonPassword);
  if (problem) return { outcome: 'refused', problem };
  const passwordHash = await hashPassword(request.password);
  const userId = await deps.users.takeLink(hashSecret(token), 'invitation', deps.clock.now());
  if (!userId) return { outcome: 'link-invalid' };
  await deps.users.setPassword(userId, passwordHash, deps.clock.now());
  if (request.name) await deps.users.setName(userId, request.name);
  const user = (await deps.users.find(userId)) as ConsoleUserRecord;
  return { outcome: 'done', session: await issueSession(deps, userId, 'enrol', request.clientAddress), user };
}

/** Mails a reset link (one hour, once) if the address has an account; the page says the same either way. */
export async function requestPasswordReset(deps: AccessDeps, email: string): Promise<void> {
  const user = await deps.users.findByEmail(email.trim().toLowerCase());
  if (!user || user.passwordHash === null) return;
  const token = newSecretToken();
  const now = deps.clock.now();
  await deps.users.replaceLink(user.id, {
    tokenHash: hashSecret(token),
    purpose: 'reset',
    createdAt: now,
    expiresAt: new Date(now.getTime() + RESET_VALID_MS),
  });
  const link = `${deps.publicBaseUrl}/console/password-reset/${token}`;
  // The page says the same whether or not the mail left (it must not tell who has an account): a mail
  // that cannot leave is the caller's to log.
  await deps.mailer.send({
    to: user.email,
    ...(user.language === 'en'
      ? {
          subject: 'Reset your password',
          text: `Choose a new password here (valid one hour, once):\n${link}\n\nIf you did not ask for it, ignore this message.`,
        }
      : {
          subject: 'Restablecer su contraseña',
          text: `Elija una nueva contraseña aquí (vale una hora, una vez):\n${link}\n\nSi no lo pidió, ignore este mensaje.`,
        }),
  });
}

export async function resetLinkValid(deps: AccessDeps, token: string): Promise<boolean> {
  return (await deps.users.peekLink(hashSecret(token), 'reset', deps.clock.now())) !== undefined;
}

/**
 * A new password by a reset link: every session of the user ends, the lock is lifted (the mail proved who
 * it is); the second factor stays, and is asked at the next sign-in.
 */
export async function resetPassword(
  deps: AccessDeps,
  token: string,
  request: { password: string; confirmation: string },
): Promise<
  { outcome: 'done' } | { outcome: 'refused'; problem: PasswordProblem } | { outcome: 'link-invalid' }
> {
  if (!(await resetLinkValid(deps, token))) return { outcome: 'link-invalid' };
  const problem = passwordProblem(request.password, request.confirmation, isCommonPassword);
  if (problem) return { outcome: 'refused', problem };
  const passwordHash = await hashPassword(request.password);
  const userId = await deps.users.takeLink(hashSecret(token), 'reset', deps.clock.now());
  if (!userId) return { outcome: 'link-invalid' };
  await deps.users.setPassword(userId, passwordHash, deps.clock.now());
  return { outcome: 'done' };
}

/**
 * The signed-in user's new password: the current one first. Every session of the user ends (signed out
 * everywhere); this browser gets a new one.
 */
export async function changePassword(
  deps: AccessDeps,
  session: ConsoleSessionRecord,
  request: { current: string; password: string; confirmation: string; clientAddress: string | null },
): Promise<
  | { outcome: 'done'; session: IssuedSession }
  | { outcome: 'refused'; problem: PasswordProblem | 'wrong-current' }
> {
  const user = session.user;
  if (!user.passwordHash || !(await verifyPassword(request.current, user.passwordHash)))
    return { outcome: 'refused', problem: 'wrong-current' };
  const problem = passwordProblem(request.password, request.confirmation, isCommonPassword);
  if (problem) return { outcome: 'refused', problem };
  await deps.users.setPassword(user.id, await hashPassword(request.password), deps.clock.now());
  return { outcome: 'done', session: await issueSession(deps, user.id, 'full', request.clientAddress) };
}

// ---------------------------------------------------------------------------------------------------
// The second factor.

/** The secret being set up (a new one unless one is waiting), as the page shows it: base32 and otpauth URI. */
export async function beginEnrolment(
  deps: AccessDeps,
  user: ConsoleUserRecord,
): Promise<{ secret: string; uri: string }> {
  let secret =
    user.totpSecretSealed && !user.totpEnabledAt ? deps.sealer.open(user.totpSecretSealed) : undefined;
  if (!secret) {
    secret = newTotpSecret();
    await deps.users.setPendingTotp(user.id, deps.sealer.seal(secret));
  }
  return { secret, uri: otpauthUri(secret, user.email) };
}

/**
 * The first code from the app confirms the enrolment: the second factor is on, with fresh recovery codes
 * (shown once; their hashes kept). Undefined: the code is not right.
 */
export async function confirmEnrolment(
  deps: AccessDeps,
  user: ConsoleUserRecord,
  code: string,
): Promise<string[] | undefined> {
  const fresh = await deps.users.find(user.id);
  if (!fresh?.totpSecretSealed || fresh.totpEnabledAt) return undefined;
  const step = acceptedStep(deps.sealer.open(fresh.totpSecretSealed), code, deps.clock.now(), null);
  if (step === undefined) return undefined;
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await deps.users.enableTotp(user.id, step, deps.clock.now(), codes.map(hashRecoveryCode));
  return codes;
}

/** Turns the second factor off: the password first. */
export async function disableSecondFactor(
  deps: AccessDeps,
  user: ConsoleUserRecord,
  password: string,
): Promise<boolean> {
  if (!user.passwordHash || !(await verifyPassword(password, user.passwordHash))) return false;
  await deps.users.disableTotp(user.id);
  return true;
}

/** After an invitation's enrolment (or its skip), the partial session ends: the person signs in. */
export async function finishEnrolment(deps: AccessDeps, session: ConsoleSessionRecord): Promise<void> {
  await deps.sessions.end(session.tokenHash);
}
