import { aMerchant, type ServiceUnderTest, startService, testClock, waitFor } from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { earlyLinkPayments, inbox } from '../src/adapters/postgres/schema';
import { subscriptionStores } from '../src/adapters/postgres/stores';
import { activateSubscriptionOnPayment } from '../src/application/activate-subscription-on-payment';
import { createSubscriptionFromLink } from '../src/application/create-subscription-from-link';
import type { SubscriptionStores } from '../src/ports/unit-of-work';
import { subscriptionsService } from '../src/service';
import {
  activate,
  createSubscription,
  eventsOfType,
  installmentsOfSubscription,
  linkCreated,
  linkPaid,
  newLinkId,
  publish,
  subscriptionOfLink,
} from './support';

let svc: ServiceUnderTest;
beforeAll(async () => {
  svc = await startService(subscriptionsService, { clock: testClock(new Date('2026-01-15T18:00:00Z')) });
});
afterAll(async () => svc?.stop());

describe('link.created → pending subscription', () => {
  it('stores a STATIC subscription with its whole schedule and announces it', async () => {
    const merchant = aMerchant();
    const { subscription, installments } = await createSubscription(svc, merchant, {
      customIdentifier2: 'C-9',
    });
    expect(subscription).toMatchObject({
      status: 'pending',
      type: 'STATIC',
      customIdentifier: 'CI-1',
      customIdentifier2: 'C-9',
    });
    expect(installments.map((i) => [i.number, i.paymentDate, i.amount, i.status, i.invoiceNumber])).toEqual([
      [1, '2026-01-15', '200000.00', 'pending', null],
      [2, '2026-02-10', '150000.00', 'pending', null],
      [3, '2026-03-10', '150000.00', 'pending', null],
      [4, '2026-04-10', '150000.00', 'pending', null],
    ]);
    const [created] = (await eventsOfType(svc, 'subscription.created')).filter(
      (e) => (e.data as { subscriptionId: number }).subscriptionId === subscription.id,
    );
    expect(created?.data).toEqual({
      subscriptionId: subscription.id,
      merchantId: merchant.merchantId,
      linkId: subscription.linkId,
      type: 'STATIC',
      status: 'pending',
      customIdentifier: 'CI-1',
      customIdentifier2: 'C-9',
      currency: 'PYG',
      timezone: 'America/Asuncion',
      totalPeriods: 4,
      installments: installments.map((i) => ({
        installmentId: i.id,
        number: i.number,
        paymentDate: i.paymentDate,
        amount: i.amount,
      })),
    });
  });

  it('stores a DYNAMIC subscription with installment 1 only', async () => {
    const { subscription, installments } = await createSubscription(svc, aMerchant(), {
      recurrence: { type: 'DYNAMIC' },
    });
    expect(subscription).toMatchObject({
      type: 'DYNAMIC',
      status: 'pending',
      totalPeriods: null,
      dayOfMonth: null,
    });
    expect(installments.map((i) => [i.number, i.paymentDate, i.amount])).toEqual([
      [1, '2026-01-15', '200000.00'],
    ]);
  });

  it('counts months from the creation day in the merchant time zone (late on the 31st in Asunción)', async () => {
    const { installments } = await createSubscription(svc, aMerchant(), {
      createdAt: '2026-02-01T02:30:00.000Z',
      createdOn: '2026-01-31',
      recurrence: {
        type: 'STATIC',
        installmentAmount: '10.50',
        totalPeriods: 3,
        dayOfMonth: 28,
        monthForSecondInstallment: 1,
      },
    });
    expect(installments.map((i) => i.paymentDate)).toEqual(['2026-01-31', '2026-02-28', '2026-03-28']);
  });

  it('ignores one-off links', async () => {
    const event = linkCreated(aMerchant(), { recurrence: null });
    const fence = linkCreated(aMerchant());
    await publish(svc.bus, event);
    await publish(svc.bus, fence);
    await waitFor(() => subscriptionOfLink(svc, fence.data.linkId));
    expect(await subscriptionOfLink(svc, event.data.linkId)).toBeUndefined();
  });

  it('creates one subscription per link, however often the event comes', async () => {
    const merchant = aMerchant();
    const event = linkCreated(merchant);
    await publish(svc.bus, event);
    const subscription = await waitFor(() => subscriptionOfLink(svc, event.data.linkId));
    // The same message again (inbox), and the same link under another message id (unique link id).
    await publish(svc.bus, event);
    const again = linkCreated(merchant, { linkId: event.data.linkId });
    await publish(svc.bus, again);
    const fence = linkCreated(merchant);
    await publish(svc.bus, fence);
    await waitFor(() => subscriptionOfLink(svc, fence.data.linkId));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await installmentsOfSubscription(svc, subscription.id)).toHaveLength(4);
    const created = (await eventsOfType(svc, 'subscription.created')).filter(
      (e) => (e.data as { linkId: number }).linkId === event.data.linkId,
    );
    expect(created).toHaveLength(1);
  });
});

describe('link.paid → active subscription, installment 1 paid', () => {
  it('activates and settles installment 1, with one event each', async () => {
    const merchant = aMerchant();
    const { subscription, linkId } = await createSubscription(svc, merchant);
    const active = await activate(svc, merchant, linkId);
    expect(active.status).toBe('active');
    expect(active.activatedAt?.toISOString()).toBe('2026-01-15T16:00:00.000Z');
    const installments = await installmentsOfSubscription(svc, subscription.id);
    expect(installments.map((i) => i.status)).toEqual(['paid', 'pending', 'pending', 'pending']);
    expect(installments[0]?.paidAt?.toISOString()).toBe('2026-01-15T16:00:00.000Z');

    const activated = (await eventsOfType(svc, 'subscription.activated')).filter(
      (e) => (e.data as { subscriptionId: number }).subscriptionId === subscription.id,
    );
    expect(activated.map((e) => e.data)).toEqual([
      expect.objectContaining({
        status: 'active',
        activatedAt: '2026-01-15T16:00:00.000Z',
        timezone: 'America/Asuncion',
      }),
    ]);
    const paid = (await eventsOfType(svc, 'installment.paid')).filter(
      (e) => (e.data as { subscriptionId: number }).subscriptionId === subscription.id,
    );
    expect(paid.map((e) => e.data)).toEqual([
      {
        merchantId: merchant.merchantId,
        subscriptionId: subscription.id,
        installmentId: installments[0]?.id,
        number: 1,
        paymentDate: '2026-01-15',
        amount: '200000.00',
        currency: 'PYG',
        status: 'paid',
        invoiceNumber: null,
        timezone: 'America/Asuncion',
        paidAt: '2026-01-15T16:00:00.000Z',
        method: 'CARD',
        bankReference: null,
        bankTransfer: null,
        paidCount: 1,
        paidTotal: '200000.00',
        // Paid by the link payment, not by an automatic charge: the same money movement as the link's.
        chargeAttempt: null,
        txId: 'tx-1',
        processorReference: 'REF-1',
        authorizationCode: 'AUTH-1',
      },
    ]);
  });

  it('a second link.paid for the link changes nothing', async () => {
    const merchant = aMerchant();
    const { subscription, linkId } = await createSubscription(svc, merchant);
    await activate(svc, merchant, linkId);
    const before = await installmentsOfSubscription(svc, subscription.id);
    await publish(svc.bus, linkPaid(merchant, linkId));
    const fence = await createSubscription(svc, merchant);
    await activate(svc, merchant, fence.linkId);
    expect(await installmentsOfSubscription(svc, subscription.id)).toEqual(before);
    const activated = (await eventsOfType(svc, 'subscription.activated')).filter(
      (e) => (e.data as { subscriptionId: number }).subscriptionId === subscription.id,
    );
    expect(activated).toHaveLength(1);
  });

  it('a payment that arrives before its link.created activates the subscription when it is created', async () => {
    const merchant = aMerchant();
    const linkId = newLinkId();
    await publish(svc.bus, linkPaid(merchant, linkId));
    await waitFor(
      async () =>
        (
          await svc.database.db.select().from(earlyLinkPayments).where(eq(earlyLinkPayments.linkId, linkId))
        )[0],
    );
    const { subscription } = await createSubscription(svc, merchant, { linkId });
    expect(subscription.status).toBe('active');
    expect((await installmentsOfSubscription(svc, subscription.id)).map((i) => i.status)).toEqual([
      'paid',
      'pending',
      'pending',
      'pending',
    ]);
    expect(
      await svc.database.db.select().from(earlyLinkPayments).where(eq(earlyLinkPayments.linkId, linkId)),
    ).toEqual([]);
    // Installment 1 is announced as the link's payment, references and all, though it waited.
    const paid = (await eventsOfType(svc, 'installment.paid')).filter(
      (e) => (e.data as { subscriptionId: number }).subscriptionId === subscription.id,
    );
    expect(paid.map((e) => e.data)).toEqual([
      expect.objectContaining({
        number: 1,
        method: 'CARD',
        txId: 'tx-1',
        processorReference: 'REF-1',
        authorizationCode: 'AUTH-1',
      }),
    ]);
  });

  it('link.paid still open when link.created commits: the subscription is active all the same (the link lock)', async () => {
    const merchant = aMerchant();
    const linkId = newLinkId();
    const clock = testClock(new Date('2026-01-15T18:00:00Z'));
    const base = subscriptionStores(svc.database.db);
    // The payment's transaction finds no subscription, then stays open a while before it writes the early
    // payment: the window in which link.created, with no lock, would commit a subscription that never sees it.
    const slowPayment: SubscriptionStores = {
      ...base,
      transaction: (work) =>
        base.transaction((tx) =>
          work({
            ...tx,
            earlyPayments: {
              ...tx.earlyPayments,
              recordEarlyPayment: async (payment) => {
                await new Promise((resolve) => setTimeout(resolve, 400));
                return tx.earlyPayments.recordEarlyPayment(payment);
              },
            },
          }),
        ),
    };
    const paying = activateSubscriptionOnPayment(
      { stores: slowPayment, clock },
      linkPaid(merchant, linkId).data,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const creating = createSubscriptionFromLink(
      { stores: base, clock },
      linkCreated(merchant, { linkId }).data,
    );
    expect((await paying).kind).toBe('recorded');
    await creating;
    expect((await subscriptionOfLink(svc, linkId))?.status).toBe('active');
    expect(
      await svc.database.db.select().from(earlyLinkPayments).where(eq(earlyLinkPayments.linkId, linkId)),
    ).toEqual([]);
  });

  it('a one-off link payment is ignored and leaves nothing behind', async () => {
    const merchant = aMerchant();
    const linkId = newLinkId();
    const oneOff = linkPaid(merchant, linkId, '200000.00', false);
    await publish(svc.bus, oneOff);
    // The inbox row shows the consumer has handled it.
    await waitFor(
      async () => (await svc.database.db.select().from(inbox).where(eq(inbox.messageId, oneOff.id)))[0],
    );
    expect(
      await svc.database.db.select().from(earlyLinkPayments).where(eq(earlyLinkPayments.linkId, linkId)),
    ).toEqual([]);
  });

  it('a payment of another merchant for the link is not this subscription', async () => {
    const merchant = aMerchant();
    const { subscription, linkId } = await createSubscription(svc, merchant);
    await publish(svc.bus, linkPaid(aMerchant(), linkId));
    await waitFor(
      async () =>
        (
          await svc.database.db.select().from(earlyLinkPayments).where(eq(earlyLinkPayments.linkId, linkId))
        )[0],
    );
    expect((await subscriptionOfLink(svc, linkId))?.status).toBe('pending');
    expect((await installmentsOfSubscription(svc, subscription.id))[0]?.status).toBe('pending');
  });
});
