import { randomUUID } from 'node:crypto';
import type { ConsoleLanguage, MerchantRole } from '@payrail/contracts';
import {
  ConsoleEmailTaken,
  ConsoleUserNotFound,
  InvitationNotSent,
  LastOwner,
  MerchantNotFound,
} from '../../domain/errors';
import { INVITATION_VALID_MS } from '../../domain/access/rules';
import type { ConsoleUserRecord, NewConsoleUser } from '../../ports/console-user-store';
import type { AccessDeps } from './deps';
import { hashSecret, newSecretToken } from './secrets';

/** The invitation mail, in both languages (the invited person has chosen none yet). */
function invitationMail(link: string, forWhom: string) {
  return {
    subject: 'Invitación a la consola de pagos · Invitation to the payments console',
    text: [
      `Le invitaron a la consola de pagos de ${forWhom}. Elija su contraseña aquí (vale 72 horas, una vez):`,
      link,
      '',
      `You have been invited to ${forWhom}'s payments console. Choose your password here (valid 72 hours, once):`,
      link,
    ].join('\n'),
  };
}

/**
 * A new invitation link (72 hours, once; only its hash kept) and the mail that carries it: a mail that
 * cannot leave is `InvitationNotSent` (503), and a person invited anew by it is not kept.
 */
function invitationFor(deps: AccessDeps, user: { email: string }, forWhom: string) {
  const token = newSecretToken();
  const now = deps.clock.now();
  const link = {
    tokenHash: hashSecret(token),
    purpose: 'invitation' as const,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_VALID_MS),
  };
  const mail = invitationMail(`${deps.publicBaseUrl}/console/invitation/${token}`, forWhom);
  return {
    link,
    async send(): Promise<void> {
      try {
        await deps.mailer.send({ to: user.email, ...mail });
      } catch (error) {
        throw new InvitationNotSent(user.email, error);
      }
    },
  };
}

/** Stores a new invited person and mails the link; nothing stays if the mail cannot leave. */
async function createInvited(
  deps: AccessDeps,
  user: NewConsoleUser,
  forWhom: string,
): Promise<ConsoleUserRecord> {
  const invitation = invitationFor(deps, user, forWhom);
  if (!(await deps.users.create(user, invitation.link))) throw new ConsoleEmailTaken(user.email);
  try {
    await invitation.send();
  } catch (error) {
    await deps.users.removeInvited(user.id);
    throw error;
  }
  return (await deps.users.find(user.id)) as ConsoleUserRecord;
}

/**
 * Invites a person to a merchant's console (by its owner, or the operator for the first owner). An address
 * still invited by this merchant gets a new link (the old one stops working) and the role asked for; an
 * address with an account anywhere else is taken.
 */
export async function inviteMerchantUser(
  deps: AccessDeps,
  merchantId: string,
  request: { email: string; role: MerchantRole; name?: string | undefined },
): Promise<ConsoleUserRecord> {
  const merchant = await deps.merchants.findContext(merchantId);
  if (!merchant) throw new MerchantNotFound(merchantId);
  const email = request.email.trim().toLowerCase();
  const existing = await deps.users.findByEmail(email);
  if (existing) {
    if (existing.merchantId !== merchantId || existing.passwordHash !== null)
      throw new ConsoleEmailTaken(email);
    const again = invitationFor(deps, existing, merchant.name);
    await deps.users.replaceLink(existing.id, again.link);
    if (existing.role !== request.role) await deps.users.changeRole(merchantId, existing.id, request.role);
    if (request.name) await deps.users.setName(existing.id, request.name);
    await again.send();
    return (await deps.users.find(existing.id)) as ConsoleUserRecord;
  }
  const user: NewConsoleUser = {
    id: randomUUID(),
    kind: 'merchant',
    merchantId,
    email,
    name: request.name ?? null,
    role: request.role,
    createdAt: deps.clock.now(),
  };
  return createInvited(deps, user, merchant.name);
}

/** Invites an operator's own console account (by the bearer token, or another operator account). */
export async function inviteOperator(
  deps: AccessDeps,
  request: { email: string; name?: string | undefined },
): Promise<ConsoleUserRecord> {
  const email = request.email.trim().toLowerCase();
  const existing = await deps.users.findByEmail(email);
  if (existing && (existing.kind !== 'operator' || existing.passwordHash !== null))
    throw new ConsoleEmailTaken(email);
  if (existing) {
    const again = invitationFor(deps, existing, 'payrail (operator)');
    await deps.users.replaceLink(existing.id, again.link);
    await again.send();
    return (await deps.users.find(existing.id)) as ConsoleUserRecord;
  }
  const user: NewConsoleUser = {
    id: randomUUID(),
    kind: 'operator',
    merchantId: null,
    email,
    name: request.name ?? null,
    role: null,
    createdAt: deps.clock.now(),
  };
  return createInvited(deps, user, 'payrail (operator)');
}

export async function listMerchantUsers(deps: AccessDeps, merchantId: string): Promise<ConsoleUserRecord[]> {
  if (!(await deps.merchants.findContext(merchantId))) throw new MerchantNotFound(merchantId);
  return deps.users.list(merchantId);
}

export async function listOperators(deps: AccessDeps): Promise<ConsoleUserRecord[]> {
  return deps.users.list(null);
}

export async function changeUserRole(
  deps: AccessDeps,
  merchantId: string,
  userId: string,
  role: MerchantRole,
): Promise<ConsoleUserRecord> {
  const changed = await deps.users.changeRole(merchantId, userId, role);
  if (changed === undefined) throw new ConsoleUserNotFound(userId);
  if (!changed) throw new LastOwner(merchantId);
  return (await deps.users.find(userId)) as ConsoleUserRecord;
}

/** Removes a user: its sessions end with it. */
export async function removeUser(deps: AccessDeps, merchantId: string, userId: string): Promise<void> {
  const removed = await deps.users.remove(merchantId, userId);
  if (removed === undefined) throw new ConsoleUserNotFound(userId);
  if (!removed) throw new LastOwner(merchantId);
}

export async function setLanguage(
  deps: AccessDeps,
  userId: string,
  language: ConsoleLanguage,
): Promise<void> {
  await deps.users.setLanguage(userId, language);
}
