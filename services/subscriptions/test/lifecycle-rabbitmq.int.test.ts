import type { DeliveredMessage } from '@payrail/messaging';
import {
  aMerchant,
  testRabbitMqBus,
  type TestRabbitMqBus,
  type ServiceUnderTest,
  startService,
  waitFor,
} from '@payrail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionsService } from '../src/service';
import { installmentsOfSubscription, linkCreated, linkPaid, publish, subscriptionOfLink } from './support';

/**
 * The lifecycle through a real broker: events in from RabbitMQ, events out through the outbox relay to
 * RabbitMQ. Exchange and queues have names of their own, apart from every other test file.
 */
let bus: TestRabbitMqBus;
let svc: ServiceUnderTest;
const observed: DeliveredMessage[] = [];

beforeAll(async () => {
  bus = testRabbitMqBus('subscriptions_test');
  svc = await startService(subscriptionsService, { bus });
  await bus.subscribe({
    consumer: 'observer',
    eventTypes: ['subscription.created', 'subscription.activated', 'installment.paid'],
    handler: async (message) => {
      observed.push(message);
    },
  });
});
afterAll(async () => {
  await svc?.stop();
  await bus?.removeTopology();
});

describe('subscriptions on RabbitMQ', () => {
  it('creates on link.created, activates on link.paid, publishes its events, and shrugs off a redelivery', async () => {
    const merchant = aMerchant();
    const created = linkCreated(merchant);
    await publish(bus, created);
    const subscription = await waitFor(() => subscriptionOfLink(svc, created.data.linkId));
    expect(subscription.status).toBe('pending');

    const paid = linkPaid(merchant, created.data.linkId);
    await publish(bus, paid);
    await publish(bus, paid);
    await waitFor(async () => (await subscriptionOfLink(svc, created.data.linkId))?.status === 'active');
    expect((await installmentsOfSubscription(svc, subscription.id)).map((i) => i.status)).toEqual([
      'paid',
      'pending',
      'pending',
      'pending',
    ]);

    const ofThisSubscription = () =>
      observed
        .map((message) => JSON.parse(message.body) as { type: string; data: { subscriptionId: number } })
        .filter((event) => event.data.subscriptionId === subscription.id)
        .map((event) => event.type)
        .sort();
    await waitFor(() => ofThisSubscription().length >= 3, 15_000);
    // Give a duplicate a chance to show up before asserting there is none.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ofThisSubscription()).toEqual([
      'installment.paid',
      'subscription.activated',
      'subscription.created',
    ]);
  });
});
