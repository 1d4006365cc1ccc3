import { CHARGE_KEY_KINDS } from './charge-key';

/**
 * Routing keys on the event exchange. An event goes out under its type, or under its type plus one more
 * word where consumers need only part of a type's events: a consumer bound to the type still gets them
 * all (the bus binds `<type>` and `<type>.#`), one bound to the longer key gets only those.
 */

/** `link.created` of a recurrent link only (subscriptions creates a subscription from it; one-off links are not its business). */
export const RECURRENT_LINK_CREATED = 'link.created.recurrent';
const ONE_OFF_LINK_CREATED = 'link.created.one-off';

/**
 * What a one-off link's serialised body always contains. Outside a string a quote is never escaped, and
 * inside one it always is: so this text can only be the key itself, never part of a label.
 */
const NO_RECURRENCE = '"recurrence":null';

/**
 * `payment.succeeded` / `payment.failed` of a pay page charge (key `link:<id>:payment:<n>`): the links
 * service settles its link from these only; an installment's charges (`installment:<id>:attempt:<n>`, most
 * of them) go out as `payment.<outcome>.installment`. A consumer bound to the type still gets both.
 */
export const LINK_PAYMENT_SUCCEEDED = 'payment.succeeded.link';
export const LINK_PAYMENT_FAILED = 'payment.failed.link';

/**
 * `installment.paid` of an installment its automatic charge paid (`chargeAttempt` set): billing-scheduler has
 * it already from that charge's `payment.succeeded`, so it takes only the others (the link payment, a bank
 * transfer) for its projection. A consumer bound to the type (the webhooks) still gets both.
 */
export const INSTALLMENT_PAID_BY_CHARGE = 'installment.paid.by-charge';
export const INSTALLMENT_PAID_OTHERWISE = 'installment.paid.otherwise';

/**
 * What an `installment.paid` paid by no charge always contains (`chargeAttempt` null, or absent in older
 * messages); quoted as the envelope's own field, so never text inside a value (see `NO_RECURRENCE`).
 */
const CHARGE_ATTEMPT_FIELD = '"chargeAttempt":';
const NO_CHARGE_ATTEMPT = '"chargeAttempt":null';

/** The routing key an event is published under; `body` is the serialised envelope. */
export function routingKeyOf(type: string, body: string): string {
  if (type === 'payment.succeeded' || type === 'payment.failed') return paymentRoutingKey(type, body);
  if (type === 'installment.paid') {
    const byCharge = body.includes(CHARGE_ATTEMPT_FIELD) && !body.includes(NO_CHARGE_ATTEMPT);
    return byCharge ? INSTALLMENT_PAID_BY_CHARGE : INSTALLMENT_PAID_OTHERWISE;
  }
  if (type !== 'link.created') return type;
  // The relay publishes every link: most are one-off, known without parsing the whole body.
  if (body.includes(NO_RECURRENCE)) return ONE_OFF_LINK_CREATED;
  try {
    const recurrence = (JSON.parse(body) as { data?: { recurrence?: unknown } }).data?.recurrence;
    return recurrence ? RECURRENT_LINK_CREATED : ONE_OFF_LINK_CREATED;
  } catch {
    return type;
  }
}

/**
 * A payment's key by the kind of charge. The envelope's only `idempotencyKey` is the charge's; as with
 * `NO_RECURRENCE`, an unescaped `"idempotencyKey":"` can only be that key, never text inside a value.
 */
function paymentRoutingKey(type: string, body: string): string {
  for (const kind of CHARGE_KEY_KINDS) {
    if (body.includes(`"idempotencyKey":"${kind}:`)) return `${type}.${kind}`;
  }
  return type;
}
