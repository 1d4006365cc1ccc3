import type { WebhookEventKind } from '@payrail/contracts';

/**
 * A money amount that goes on the wire as a JSON number with two decimals (`150000.00`), as receivers in
 * the field parse it, without ever being a float here: the decimal string is written into the JSON text.
 */
export class JsonDecimal {
  constructor(readonly decimal: string) {
    if (!/^-?\d+\.\d{2}$/.test(decimal)) throw new Error(`not a 2-decimal amount: ${decimal}`);
  }
}

export const amountOrNull = (decimal: string | null | undefined): JsonDecimal | null =>
  decimal === null || decimal === undefined ? null : new JsonDecimal(decimal);

export type EnvelopeValue =
  | string
  | number
  | boolean
  | null
  | JsonDecimal
  | EnvelopeValue[]
  | { [key: string]: EnvelopeValue };

/** The fields every envelope's `data` has (null where they do not apply). */
export interface EnvelopeBase {
  txId: string | null;
  payRequestId: number | null;
  currency: string | null;
  amount: JsonDecimal | null;
  statusId: number | null;
  customIdentifier: string | null;
  customIdentifier2: string | null;
  label: string | null;
  subscriptionId: number | null;
  subscriptionTotalPeriods: number | null;
  subscriptionPayedPeriod: number | null;
}

export interface WebhookEnvelope {
  id: string;
  event: WebhookEventKind | 'WEBHOOK_TEST';
  createdAt: string;
  data: EnvelopeBase & { [key: string]: EnvelopeValue };
}

/** The envelope's JSON text, amounts written as numbers with two decimals. */
export function serializeEnvelope(envelope: WebhookEnvelope): string {
  const decimals: string[] = [];
  const text = JSON.stringify(envelope, (_key, value) => {
    if (value instanceof JsonDecimal) {
      decimals.push(value.decimal);
      return `\u0000DECIMAL${decimals.length - 1}\u0000`;
    }
    return value;
  });
  return text.replace(/"\\u0000DECIMAL(\d+)\\u0000"/g, (_match, index) => decimals[Number(index)] as string);
}
