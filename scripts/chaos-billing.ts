// `npm run chaos:billing`: the automatic-debit chaos run (test-e2e/billing-chaos.ts) from the command
// line, sized by CHAOS_INSTALLMENTS (2,000 due installments in all: 5 due for each of CHAOS_INSTALLMENTS / 5
// subscriptions), CHAOS_CONCURRENCY (8 customers subscribing at once) and CHAOS_ROUNDS (3 kills of each
// service). Ends with one line `chaos:billing: pass|fail` and its figures; exits non-zero on fail.
import { runBillingChaos } from '../test-e2e/billing-chaos';

export {
  type BillingChaosOptions,
  type BillingChaosResult,
  runBillingChaos,
} from '../test-e2e/billing-chaos';

const numberFrom = (value: string | undefined, fallback: number) =>
  value === undefined || value === '' ? fallback : Number(value);

if (require.main === module) {
  const total = numberFrom(process.env.CHAOS_INSTALLMENTS, 2_000);
  const each = Math.min(5, total);
  runBillingChaos({
    subscriptions: Math.ceil(total / each),
    installments: each,
    concurrency: numberFrom(process.env.CHAOS_CONCURRENCY, 8),
    rounds: numberFrom(process.env.CHAOS_ROUNDS, 3),
  }).then(
    (result) => {
      const hooks = result.webhooks;
      console.log(
        `chaos:billing: ${result.ok ? 'pass' : 'fail'} due=${result.due} paid=${result.paid} lost=${result.lost} ` +
          `double=${result.doubleCharges} faults=${result.disruptions.length} webhooks=${hooks.events} ` +
          `undelivered=${hooks.undelivered + hooks.missing} converged=${result.convergenceSeconds ?? 'never'}s ` +
          `(limit ${result.convergenceLimitSeconds}s) unexpected-exits=${result.unexpectedExits.length}`,
      );
      process.exit(result.ok ? 0 : 1);
    },
    (error) => {
      console.error('[chaos] failed:', error);
      process.exit(1);
    },
  );
}
