/**
 * Amounts in the customer's language and the link's currency (`Gs. 150.000`, `US$ 1,234.50`): the one
 * formatter of `libs/money`, which the processor sandbox's hosted forms use too, so both show an amount
 * alike.
 */
export { formatMoney } from '@payrail/money';
