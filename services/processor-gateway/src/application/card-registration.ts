import { randomUUID } from 'node:crypto';
import { CardRegistrationNotFound, ProcessorUnavailable } from '../domain/errors';
import { type PaymentMethod, safeMask } from '../domain/payment-method';
import { newProcessorReference } from './processor-references';
import type {
  CardProcessors,
  HostedForm,
  OpenResult,
  ProcessorId,
  StoredCard,
} from '../ports/card-processor';
import type { Clock } from '@payrail/time';
import type { CardRegistration } from '../ports/card-registration-store';
import type { GatewayStores, InTransaction } from '../ports/unit-of-work';
import { paymentMethodSaved } from './events';

export interface VaultDeps {
  stores: GatewayStores;
  transaction: InTransaction;
  processors: CardProcessors;
  clock: Clock;
}

export interface OpenRegistrationRequest {
  merchantId: string;
  customerId: number;
  processor: ProcessorId;
  returnUrl: string;
  linkId?: number | null;
  email?: string;
  phone?: string;
  name?: string;
}

/** Opens the processor's hosted form where the customer types a card to keep (no money moves). */
export async function openCardRegistration(
  deps: VaultDeps,
  request: OpenRegistrationRequest,
): Promise<{ registration: CardRegistration; form: HostedForm }> {
  const now = deps.clock.now();
  const customerRef = await deps.stores.customers.processorCustomerRef(
    request.merchantId,
    request.customerId,
    request.processor,
    now,
  );
  const registration: CardRegistration = {
    id: randomUUID(),
    merchantId: request.merchantId,
    customerId: request.customerId,
    processor: request.processor,
    customerRef,
    registrationRef: newProcessorReference(),
    linkId: request.linkId ?? null,
    status: 'open',
    createdAt: now,
    completedAt: null,
  };
  await deps.stores.registrations.insertRegistration(registration);
  let opened: OpenResult;
  try {
    opened = await deps.processors(request.processor).openCardRegistration({
      customerRef,
      registrationRef: registration.registrationRef,
      returnUrl: request.returnUrl,
      email: request.email,
      phone: request.phone,
      name: request.name,
    });
  } catch (error) {
    opened = {
      kind: 'refused',
      decline: { code: 'ADAPTER_ERROR', category: 'processor-down', message: (error as Error).message },
    };
  }
  if (opened.kind === 'refused') {
    throw new ProcessorUnavailable(
      opened.decline.code,
      opened.decline.message ?? 'The processor did not open the form',
    );
  }
  return { registration, form: opened.form };
}

function toPaymentMethod(registration: CardRegistration, card: StoredCard, now: Date): PaymentMethod {
  return {
    id: randomUUID(),
    merchantId: registration.merchantId,
    customerId: registration.customerId,
    processor: registration.processor,
    customerRef: registration.customerRef,
    cardRef: card.cardRef,
    maskedNumber: safeMask(card.maskedNumber, card.last4),
    last4: card.last4.replace(/\D/g, '').slice(-4),
    brand: card.brand,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    blockedUntil: null,
    createdAt: now,
    removedAt: null,
  };
}

/**
 * The browser came back from the registration form: finish it at the processor (B's confirm step) and keep
 * every card the processor now holds for the customer that we did not have yet.
 */
export async function completeCardRegistration(
  deps: VaultDeps,
  merchantId: string,
  registrationId: string,
): Promise<{ saved: PaymentMethod[]; paymentMethods: PaymentMethod[] }> {
  const registration = await deps.transaction((stores) =>
    stores.registrations.lockRegistration(merchantId, registrationId),
  );
  if (!registration) throw new CardRegistrationNotFound();
  let cards: StoredCard[];
  try {
    cards = await deps.processors(registration.processor).completeCardRegistration({
      customerRef: registration.customerRef,
      registrationRef: registration.registrationRef,
    });
  } catch (error) {
    throw new ProcessorUnavailable('ADAPTER_ERROR', (error as Error).message);
  }
  return deps.transaction(async (stores) => {
    const locked = (await stores.registrations.lockRegistration(
      merchantId,
      registrationId,
    )) as CardRegistration;
    const now = deps.clock.now();
    const saved: PaymentMethod[] = [];
    for (const card of cards) {
      const { method, created } = await stores.paymentMethods.saveNewPaymentMethod(
        toPaymentMethod(locked, card, now),
      );
      if (created) {
        saved.push(method);
        await stores.outbox.publish([paymentMethodSaved(method, now)]);
      }
    }
    if (cards.length > 0 && locked.status === 'open') {
      await stores.registrations.saveRegistration({ ...locked, status: 'completed', completedAt: now });
    }
    const all = await stores.paymentMethods.listPaymentMethods(merchantId, locked.customerId);
    return { saved, paymentMethods: all.filter((method) => method.processor === locked.processor) };
  });
}
