import { randomUUID } from 'node:crypto';
import type { ConsoleLanguage, MerchantRole } from '@payrail/contracts';
import { ConsoleEmailTaken, ConsoleUserNotFound, LastOwner, MerchantNotFound } from '../../domain/errors';
import { INVITATION_VALID_MS } from '../../domain/access/rules';
import type { ConsoleUserRecord } from '../../ports/console-user-store';
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

async function mailInvitation(deps: AccessDeps, user: { id: string; email: string }, forWhom: string) {
  const token = newSecretToken();
  const now = deps.clock.now();
  const link = {
    tokenHash: hashSecret(token),
    purpose: 'invitation' as const,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_VALID_MS),
  };
  return {
    link,
    send: () =>
      deps.mailer.send({
        to: user.email,
        ...invitationMail(`${deps.publicBaseUrl}/console/invitation/${token}`, forWhom),
      }),
  };
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
    const again = await mailInvitation(deps, existing, merchant.name);
    await deps.users.replaceLink(existing.id, again.link);
    if (existing.role !== request.role) await deps.users.changeRole(merchantId, existing.id, request.role);
    if (request.name) await deps.users.setName(existing.id, request.name);
    await again.send();
    return (await deps.users.find(existing.id)) as ConsoleUserRecord;
  }
  const user = {
    id: randomUUID(),
    kind: 'merchant' as const,
    merchantId,
    email,
    name: request.name ?? null,
    role: request.role,
    createdAt: deps.clock.now(),
  };
  const invitation = await mailInvitation(deps, user, merchant.name);
  if (!(await deps.users.create(user, invitation.link))) throw new ConsoleEmailTaken(email);
  await invitation.send();
  return (await deps.users.find(user.id)) as ConsoleUserRecord;
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
    const again = await mailInvitation(deps, existing, 'payrail (operator)');
    await deps.users.replaceLink(existing.id, again.link);
    await again.send();
    return (await deps.users.find(existing.id)) as ConsoleUserRecord;
  }
  const user = {
    id: randomUUID(),
    kind: 'operator' as const,
    merchantId: null,
    email,
    name: request.name ?? null,
    role: null,
    createdAt: deps.clock.now(),
  };
  const invitation = await mailInvitation(deps, user, 'payrail (operator)');
  if (!(await deps.users.create(user, invitation.link))) throw new ConsoleEmailTaken(email);
  await invitation.send();
  return (await deps.users.find(user.id)) as ConsoleUserRecord;
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
