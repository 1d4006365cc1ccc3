// `npm run chaos:billing`: the automatic-debit chaos run (test-e2e/billing-chaos.ts) from the command
// line, sized by CHAOS_SUBSCRIPTIONS (400), CHAOS_INSTALLMENTS (5 due each) and CHAOS_CONCURRENCY (8
// customers subscribing at once). Exits non-zero when a check fails.
import { runBillingChaos } from '../test-e2e/billing-chaos';

export {
  type BillingChaosOptions,
  type BillingChaosResult,
  runBillingChaos,
} from '../test-e2e/billing-chaos';

const numberFrom = (value: string | undefined, fallback: number) =>
  value === undefined || value === '' ? fallback : Number(value);

if (require.main === module) {
  runBillingChaos({
    subscriptions: numberFrom(process.env.CHAOS_SUBSCRIPTIONS, 400),
    installments: numberFrom(process.env.CHAOS_INSTALLMENTS, 5),
    concurrency: numberFrom(process.env.CHAOS_CONCURRENCY, 8),
  }).then(
    (result) => process.exit(result.ok ? 0 : 1),
    (error) => {
      console.error('[chaos] failed:', error);
      process.exit(1);
    },
  );
}
