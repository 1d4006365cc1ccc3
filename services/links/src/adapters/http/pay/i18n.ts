/**
 * Every word the pay page shows, in Spanish (the default) and English. A string is added to both
 * languages or to neither: `Messages` is Spanish's shape and English must match it key by key.
 */

export const LANGUAGES = ['es', 'en'] as const;
export type Lang = (typeof LANGUAGES)[number];

const es = {
  htmlTitle: 'Pagar',
  payTo: 'Pago a',
  amount: 'Monto',
  status: 'Estado',
  statusPending: 'Pendiente de pago',
  statusRejected: 'El último intento fue rechazado',
  statusPaid: 'Pagado',
  statusExpired: 'Vencido',
  statusCancelled: 'Anulado',
  statusFirstPaid: 'Primer pago hecho',
  alreadyPaid: 'Este enlace ya fue pagado. No hace falta pagar de nuevo.',
  expiredNothingToPay: 'Este enlace venció y ya no se puede pagar. Pedí un enlace nuevo al comercio.',
  cancelledNothingToPay: 'El comercio anuló este enlace; no hay nada que pagar.',
  rejectedTryAgain: 'Tu pago fue rechazado: {reason}. Podés intentar de nuevo, con otra tarjeta si querés.',
  notFoundTitle: 'Enlace no encontrado',
  notFoundText: 'Este enlace de pago no existe. Revisá la dirección que te enviaron.',
  careInvalidTitle: 'Enlace no válido',
  careInvalidText:
    'Este enlace no es válido. Usá el botón del último correo que te enviamos, sin cambiar la dirección.',
  careUsedTitle: 'Enlace ya usado',
  careUsedText: 'Este enlace ya se usó una vez. Para cambiar la tarjeta, ingresá a tu cuenta con tu correo.',
  careExpiredTitle: 'Enlace vencido',
  careExpiredText:
    'Este enlace venció: valía 7 días. Para cambiar la tarjeta, ingresá a tu cuenta con tu correo.',
  chooseHowTitle: 'Cómo querés pagar',
  paymentType: 'Tipo de pago',
  optionSingle: 'Pago único',
  optionSubscription: 'Suscripción',
  subscriptionNeedsCard: 'La suscripción se paga con tarjeta de crédito o débito.',
  chooseProcessor: 'Procesador de pago',
  processorA: 'Procesador A (formulario en esta página)',
  processorB: 'Procesador B (te llevamos a su página)',
  noProcessor: 'Este comercio no tiene habilitado ningún medio de pago con tarjeta para este enlace.',
  savedCards: 'Tus tarjetas guardadas',
  savedCardLabel: '{brand} •••• {last4}, vence {expiry}',
  newCard: 'Una tarjeta nueva',
  saveCard: 'Guardar esta tarjeta para próximos pagos',
  subscriptionKeepsCard:
    'En la suscripción, tu tarjeta queda guardada con el procesador para los débitos automáticos de cada cuota.',
  pay: 'Pagar {amount}',
  payAndSubscribe: 'Pagar {amount} y suscribirme',
  loginNeeded: 'Para pagar, primero ingresá con tu correo.',
  login: 'Ingresar',
  identifyNeeded: 'Para pagar, confirmá tu número de documento.',
  identify: 'Confirmar documento',
  scheduleTitle: 'Plan de pagos',
  scheduleInWords:
    'Un primer pago de {first} hoy y luego {count} cuotas de {installment}, el día {day} de cada mes desde {month}.',
  scheduleVaried:
    'Un primer pago de {first} hoy y luego {count} cuotas, en las fechas y por los montos de la tabla.',
  scheduleOpenEnded:
    'Un primer pago de {first} hoy y luego {installment} el día {day} de cada mes desde {month}, todos los meses hasta que se cancele.',
  scheduleSinglePeriod: 'Un único pago de {first} hoy.',
  scheduleDynamic:
    'Un primer pago de {first} hoy; las cuotas siguientes las informa el comercio en cada factura.',
  scheduleConsent:
    'Al suscribirte, aceptás que tu tarjeta se debite automáticamente en cada fecha de la tabla, por el monto de esa cuota. No tenés que volver a pagar.',
  scheduleConsentDynamic:
    'Al suscribirte, aceptás que tu tarjeta se debite automáticamente por cada cuota que el comercio informe, en su fecha.',
  firstPaymentMade: 'El primer pago ya está hecho.',
  scheduleToCome:
    'Quedan {count} cuotas por debitar: tu tarjeta se debitará automáticamente en cada fecha de la tabla.',
  scheduleToComeOne: 'Queda 1 cuota por debitar: tu tarjeta se debitará automáticamente en su fecha.',
  scheduleToComeOpenEnded:
    'Tu tarjeta se debitará automáticamente en cada fecha, todos los meses hasta que se cancele la suscripción.',
  scheduleToComeDynamic:
    'Tu tarjeta se debitará automáticamente en la fecha de cada cuota que el comercio informe.',
  scheduleNothingToCome: 'Por ahora no queda ninguna cuota por debitar.',
  scheduleCompleted: 'Todas las cuotas están pagadas: no se debitará nada más.',
  scheduleCancelled: 'La suscripción fue cancelada: no se debitará nada más de tu tarjeta.',
  scheduleUnavailable:
    'No pudimos consultar el plan de pagos actualizado. Volvé a intentarlo en un momento: hasta entonces no se puede empezar la suscripción.',
  scheduleRest: 'Ver las {count} cuotas siguientes',
  scheduleRestOne: 'Ver la cuota siguiente',
  rowPending: 'Por debitar',
  rowProcessing: 'Debitándose',
  rowPaid: 'Pagada',
  rowFailed: 'No se pudo debitar',
  rowCancelled: 'Anulada',
  scheduleInstallment: 'Cuota',
  scheduleDate: 'Fecha',
  scheduleAmount: 'Monto',
  scheduleToday: 'Hoy',
  scheduleMore: '… y {count} cuotas más',
  scheduleMoreUntilCancelled: '… y así todos los meses hasta que se cancele.',
  cardFormTitle: 'Datos de la tarjeta',
  cardFormHint: 'Escribí los datos de tu tarjeta en el formulario seguro del procesador.',
  cardFormHintSubscription:
    'Se cobra el primer pago ahora y la tarjeta queda guardada con el procesador para los débitos automáticos de las cuotas.',
  cardFormCancel: 'Volver',
  paymentInProgress: 'Estamos confirmando tu pago. Esta página se actualiza sola.',
  refresh: 'Actualizar',
  receiptTitle: 'Pago recibido',
  receiptText: 'Recibimos tu pago de {amount} para «{label}».',
  receiptReference: 'Referencia',
  receiptDate: 'Fecha',
  receiptSubscription:
    'Las próximas cuotas se debitarán automáticamente de tu tarjeta en cada fecha del plan.',
  receiptSeePlan: 'Ver el plan de pagos',
  formExpired: 'El formulario venció. Volvé a intentarlo.',
  unavailableTitle: 'No pudimos procesar el pago',
  unavailableText:
    'El procesador de pago no respondió a tiempo. No se cobró nada: volvé a intentarlo en un momento.',
  continueAfterForm: '¿Ya pagaste y esta página no cambió? Ver cómo quedó tu pago',
  backToLink: 'Volver al pago',
  declineSoft: 'la tarjeta no tiene fondos suficientes o el banco no autorizó el pago',
  declineHard: 'el banco rechazó la tarjeta',
  declineBlocked: 'la tarjeta está bloqueada para este comercio por demasiados intentos',
  declineProcessorDown: 'el procesador no respondió; no se cobró nada',
  declineCancelled: 'cancelaste el pago en el formulario',
  declineUnknown: 'el pago no se completó',
  language: 'Idioma',
  footer: 'Pago seguro. Los datos de tu tarjeta los recibe solo el procesador de pago.',
  months: [
    'enero',
    'febrero',
    'marzo',
    'abril',
    'mayo',
    'junio',
    'julio',
    'agosto',
    'septiembre',
    'octubre',
    'noviembre',
    'diciembre',
  ],
};

export type Messages = typeof es;

const en: Messages = {
  htmlTitle: 'Pay',
  payTo: 'Payment to',
  amount: 'Amount',
  status: 'Status',
  statusPending: 'Awaiting payment',
  statusRejected: 'The last attempt was declined',
  statusPaid: 'Paid',
  statusExpired: 'Expired',
  statusCancelled: 'Cancelled',
  statusFirstPaid: 'First payment made',
  alreadyPaid: 'This link is already paid. There is nothing more to pay.',
  expiredNothingToPay: 'This link has expired and can no longer be paid. Ask the merchant for a new one.',
  cancelledNothingToPay: 'The merchant cancelled this link; there is nothing to pay.',
  rejectedTryAgain: 'Your payment was declined: {reason}. You can try again, with another card if you like.',
  notFoundTitle: 'Link not found',
  notFoundText: 'This payment link does not exist. Check the address you were sent.',
  careInvalidTitle: 'Link not valid',
  careInvalidText:
    'This link is not valid. Use the button of the latest e-mail we sent you, without changing the address.',
  careUsedTitle: 'Link already used',
  careUsedText:
    'This link was already used once. To change the card, sign in to your account with your e-mail.',
  careExpiredTitle: 'Link expired',
  careExpiredText:
    'This link has expired: it was valid for 7 days. To change the card, sign in to your account with your e-mail.',
  chooseHowTitle: 'How do you want to pay',
  paymentType: 'Type of payment',
  optionSingle: 'One-off payment',
  optionSubscription: 'Subscription',
  subscriptionNeedsCard: 'A subscription is paid by credit or debit card.',
  chooseProcessor: 'Payment processor',
  processorA: 'Processor A (form on this page)',
  processorB: 'Processor B (we take you to its page)',
  noProcessor: 'This merchant has no card payment enabled for this link.',
  savedCards: 'Your saved cards',
  savedCardLabel: '{brand} •••• {last4}, expires {expiry}',
  newCard: 'A new card',
  saveCard: 'Save this card for future payments',
  subscriptionKeepsCard:
    'With the subscription, your card is kept by the processor for each installment’s automatic debit.',
  pay: 'Pay {amount}',
  payAndSubscribe: 'Pay {amount} and subscribe',
  loginNeeded: 'To pay, first sign in with your e-mail.',
  login: 'Sign in',
  identifyNeeded: 'To pay, confirm your document number.',
  identify: 'Confirm document',
  scheduleTitle: 'Payment plan',
  scheduleInWords:
    'A first payment of {first} today, then {count} installments of {installment} on day {day} of each month from {month}.',
  scheduleVaried:
    'A first payment of {first} today, then {count} installments, on the dates and for the amounts in the table.',
  scheduleOpenEnded:
    'A first payment of {first} today, then {installment} on day {day} of each month from {month}, every month until cancelled.',
  scheduleSinglePeriod: 'A single payment of {first} today.',
  scheduleDynamic:
    'A first payment of {first} today; the merchant announces each later installment with its invoice.',
  scheduleConsent:
    'By subscribing, you agree that your card will be debited automatically on each date in the table, for that installment’s amount. You do not need to pay again.',
  scheduleConsentDynamic:
    'By subscribing, you agree that your card will be debited automatically for each installment the merchant announces, on its date.',
  firstPaymentMade: 'The first payment is made.',
  scheduleToCome:
    '{count} installments are still to come: your card will be debited automatically on each date in the table.',
  scheduleToComeOne: '1 installment is still to come: your card will be debited automatically on its date.',
  scheduleToComeOpenEnded:
    'Your card will be debited automatically on each date, every month until the subscription is cancelled.',
  scheduleToComeDynamic:
    'Your card will be debited automatically on the date of each installment the merchant announces.',
  scheduleNothingToCome: 'For now no installment is left to debit.',
  scheduleCompleted: 'Every installment is paid: nothing more will be debited.',
  scheduleCancelled: 'The subscription was cancelled: nothing more will be debited from your card.',
  scheduleUnavailable:
    'We could not load the current payment plan. Please try again in a moment: until then the subscription cannot be started.',
  scheduleRest: 'See the next {count} installments',
  scheduleRestOne: 'See the next installment',
  rowPending: 'To be debited',
  rowProcessing: 'Being debited',
  rowPaid: 'Paid',
  rowFailed: 'Could not be debited',
  rowCancelled: 'Cancelled',
  scheduleInstallment: 'Installment',
  scheduleDate: 'Date',
  scheduleAmount: 'Amount',
  scheduleToday: 'Today',
  scheduleMore: '… and {count} more installments',
  scheduleMoreUntilCancelled: '… and so on every month until cancelled.',
  cardFormTitle: 'Card details',
  cardFormHint: "Type your card details in the processor's secure form.",
  cardFormHintSubscription:
    'The first payment is charged now and the processor keeps the card for the installments’ automatic debits.',
  cardFormCancel: 'Back',
  paymentInProgress: 'We are confirming your payment. This page refreshes by itself.',
  refresh: 'Refresh',
  receiptTitle: 'Payment received',
  receiptText: 'We received your payment of {amount} for “{label}”.',
  receiptReference: 'Reference',
  receiptDate: 'Date',
  receiptSubscription:
    'The next installments will be debited automatically from your card on each date of the plan.',
  receiptSeePlan: 'See the payment plan',
  formExpired: 'The form expired. Please try again.',
  unavailableTitle: 'We could not process the payment',
  unavailableText:
    'The payment processor did not answer in time. Nothing was charged: please try again in a moment.',
  continueAfterForm: 'Already paid and this page has not changed? See how your payment went',
  backToLink: 'Back to the payment',
  declineSoft: 'the card has insufficient funds or the bank did not authorise the payment',
  declineHard: 'the bank declined the card',
  declineBlocked: 'the card is blocked at this merchant after too many attempts',
  declineProcessorDown: 'the processor did not answer; nothing was charged',
  declineCancelled: 'you cancelled the payment on the form',
  declineUnknown: 'the payment did not go through',
  language: 'Language',
  footer: 'Secure payment. Only the payment processor receives your card details.',
  months: [
    'January',
    'February',
    'March',
    'April',
    'May',
    'June',
    'July',
    'August',
    'September',
    'October',
    'November',
    'December',
  ],
};

export const MESSAGES: Record<Lang, Messages> = { es, en };

type TextKey = { [K in keyof Messages]: Messages[K] extends string ? K : never }[keyof Messages];

/** A message with its `{name}` placeholders filled (values are plain text; the JSX layer escapes them). */
export function say(lang: Lang, key: TextKey, values: Record<string, string | number> = {}): string {
  return MESSAGES[lang][key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}

/**
 * A message with its placeholders filled by text or by markup (an amount in its own element): the parts
 * in order, for JSX to render (text parts are escaped there).
 */
export function sayWith<T>(
  lang: Lang,
  key: TextKey,
  values: Record<string, string | number | T>,
): Array<string | T> {
  const parts: Array<string | T> = [];
  const template = MESSAGES[lang][key];
  let last = 0;
  for (const match of template.matchAll(/\{(\w+)\}/g)) {
    const name = match[1] ?? '';
    if (!(name in values)) continue;
    parts.push(template.slice(last, match.index));
    const value = values[name] as string | number | T;
    parts.push(typeof value === 'number' ? String(value) : value);
    last = (match.index ?? 0) + match[0].length;
  }
  parts.push(template.slice(last));
  return parts.filter((part) => part !== '');
}

/**
 * The customer's language: `?lang=` wins (so a link can be shared in a language), then the one this
 * browser chose before, then the first supported language of `Accept-Language` by its weight, else Spanish.
 */
export function pickLang(
  query: string | undefined,
  acceptLanguage: string | undefined,
  remembered?: string,
): Lang {
  if (query && (LANGUAGES as readonly string[]).includes(query)) return query as Lang;
  // The language chosen by `?lang=` earlier in this browser (kept in a cookie across the processor's form).
  if (remembered && (LANGUAGES as readonly string[]).includes(remembered)) return remembered as Lang;
  if (!acceptLanguage) return 'es';
  const ranked = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { base: tag.trim().toLowerCase().split('-')[0] ?? '', weight, index };
    })
    .filter((entry) => Number.isFinite(entry.weight) && entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const entry of ranked) {
    if ((LANGUAGES as readonly string[]).includes(entry.base)) return entry.base as Lang;
  }
  return 'es';
}
