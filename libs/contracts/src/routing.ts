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

/** The routing key an event is published under; `body` is the serialised envelope. */
export function routingKeyOf(type: string, body: string): string {
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
