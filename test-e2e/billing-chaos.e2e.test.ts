import { expect, it } from 'vitest';
import { faultName, faultPlan, runBillingChaos } from './billing-chaos';

// The chaos proof (test-e2e/billing-chaos.ts): due installments charged while billing-scheduler,
// subscriptions, processor-gateway and the gateway are killed with SIGKILL three times each, the (private)
// broker is stopped and started once and the (private) PostgreSQL server restarted once, webhooks being
// delivered throughout; the sandbox's ledger, subscriptions' installments and the webhook receiver judge.
// The size is CHAOS_INSTALLMENTS due installments, 5 per subscription: 600 by default, what completes in
// about six minutes on a loaded two-core machine; `npm run chaos:billing`'s 2,000 take about twelve.
const installments = Number(process.env.CHAOS_INSTALLMENTS || 600);

it(`charges ${installments} due installments exactly once and delivers every webhook through kills and both restarts`, async () => {
  const result = await runBillingChaos({
    subscriptions: Math.ceil(installments / 5),
    installments: 5,
    concurrency: Number(process.env.CHAOS_CONCURRENCY || 16),
  });
  expect(result.disruptions.map((disruption) => disruption.what)).toEqual(faultPlan(3).map(faultName));
  expect(result.disruptions.filter((d) => d.what.startsWith('kill -9 gateway'))).toHaveLength(3);
  expect(result.disruptions.map((d) => d.what)).toEqual(
    expect.arrayContaining(['rabbitmq stop_app/start_app', 'postgresql restart -m fast']),
  );
  // Every webhook delivered: each delivery row delivered, each envelope's id seen by the receiver.
  expect(result.webhooks.undelivered).toBe(0);
  expect(result.webhooks.missing).toBe(0);
  expect(result.webhooks.paymentSuccesses).toBeGreaterThanOrEqual(result.due);
  // 0 double charges in the ledger, every installment charged once and paid, no service died by itself.
  expect(result.doubleCharges).toBe(0);
  expect(result.unknownCharges).toBe(0);
  expect(result.approvedCharges).toBe(result.due);
  expect(result.lost).toBe(0);
  expect(result.paid).toBe(result.due);
  expect(result.schedulerNotPaid).toEqual({});
  expect(result.unexpectedExits).toEqual([]);
  // Converged within 60 s of the last restart.
  expect(result.convergenceSeconds).not.toBeNull();
  expect(result.convergenceSeconds as number).toBeLessThanOrEqual(result.convergenceLimitSeconds);
}, 1_800_000);
