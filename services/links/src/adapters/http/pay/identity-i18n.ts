import type { Lang } from './i18n';

/**
 * The words of the pages that say who the customer is (login by code, document number, saved cards) and
 * of the code's e-mail, in Spanish and English. English must match Spanish key by key.
 */
const es = {
  loginTitle: 'Ingresá con tu correo',
  loginIntro: 'Te enviamos un código de 6 dígitos a tu correo. No hace falta contraseña.',
  emailLabel: 'Correo electrónico',
  sendCode: 'Enviarme un código',
  codeTitle: 'Escribí el código',
  codeSentTo: 'Te enviamos un código de 6 dígitos a {email}. Vale {minutes} minutos.',
  codeLabel: 'Código de 6 dígitos',
  verify: 'Ingresar',
  resend: 'Enviarme otro código',
  otherEmail: 'Usar otro correo',
  wrongCode: 'El código no es correcto. Te quedan {tries} intentos.',
  codeDead: 'Ese código venció, ya se usó o se intentó demasiadas veces. Pedí uno nuevo.',
  invalidEmail: 'Escribí un correo válido, por ejemplo ana@ejemplo.com.',
  tooManyRequests: 'Pediste demasiados códigos. Probá de nuevo en {minutes} minutos.',
  mailUnavailable: 'No pudimos enviar el correo en este momento. Probá de nuevo más tarde.',
  credentialUsed: 'El enlace de ingreso ya se usó o venció. Ingresá con tu correo.',
  mailSubject: 'Tu código para pagar a {merchant}',
  mailText:
    'Tu código para ingresar y pagar a {merchant} es {code}.\n\nVale {minutes} minutos. Si no lo pediste, ignorá este correo.',
  identifyTitle: 'Confirmá tu documento',
  identifyIntro: 'Este enlace es para una persona en particular. Escribí su número de documento para seguir.',
  documentLabel: 'Número de documento',
  continue: 'Continuar',
  documentMismatch: 'El número no coincide con el de este enlace. Revisalo e intentá de nuevo.',
  documentTooManyTries: 'Se escribieron demasiados números equivocados. Probá de nuevo en {minutes} minutos.',
  identifyNotNeeded: 'Este enlace pide ingresar con correo.',
  accountTitle: 'Tus tarjetas guardadas',
  accountNobody: 'No hay una sesión abierta. Abrí tu enlace de pago para ingresar.',
  accountNoCards: 'No tenés tarjetas guardadas en este comercio.',
  accountCard: '{brand} •••• {last4}, vence {expiry}',
  accountCardBlocked: 'bloqueada por ahora',
  remove: 'Quitar',
  removeLabel: 'Quitar la tarjeta {brand} terminada en {last4}',
  removed: 'Quitamos la tarjeta.',
  cardsUnavailable: 'No pudimos consultar tus tarjetas en este momento. Probá de nuevo más tarde.',
  logout: 'Cerrar sesión',
  loggedOut: 'Cerraste la sesión.',
  signedInAs: 'Ingresaste como {who}.',
  customerNumber: 'cliente {id}',
  myCards: 'Mis tarjetas',
};

export type IdentityMessages = typeof es;

const en: IdentityMessages = {
  loginTitle: 'Sign in with your e-mail',
  loginIntro: 'We send a 6-digit code to your e-mail. No password needed.',
  emailLabel: 'E-mail',
  sendCode: 'Send me a code',
  codeTitle: 'Type the code',
  codeSentTo: 'We sent a 6-digit code to {email}. It is valid for {minutes} minutes.',
  codeLabel: '6-digit code',
  verify: 'Sign in',
  resend: 'Send me another code',
  otherEmail: 'Use another e-mail',
  wrongCode: 'That code is not right. You have {tries} tries left.',
  codeDead: 'That code has expired, was used, or was tried too many times. Ask for a new one.',
  invalidEmail: 'Type a valid e-mail, for example ana@example.com.',
  tooManyRequests: 'You asked for too many codes. Try again in {minutes} minutes.',
  mailUnavailable: 'We could not send the e-mail right now. Please try again later.',
  credentialUsed: 'The sign-in link was already used or has expired. Sign in with your e-mail.',
  mailSubject: 'Your code to pay {merchant}',
  mailText:
    'Your code to sign in and pay {merchant} is {code}.\n\nIt is valid for {minutes} minutes. If you did not ask for it, ignore this e-mail.',
  identifyTitle: 'Confirm your document',
  identifyIntro: 'This link is for one person. Type their document number to continue.',
  documentLabel: 'Document number',
  continue: 'Continue',
  documentMismatch: 'The number does not match this link. Check it and try again.',
  documentTooManyTries: 'Too many wrong numbers were typed. Try again in {minutes} minutes.',
  identifyNotNeeded: 'This link asks you to sign in with your e-mail.',
  accountTitle: 'Your saved cards',
  accountNobody: 'You are not signed in. Open your payment link to sign in.',
  accountNoCards: 'You have no saved cards at this merchant.',
  accountCard: '{brand} •••• {last4}, expires {expiry}',
  accountCardBlocked: 'blocked for now',
  remove: 'Remove',
  removeLabel: 'Remove the {brand} card ending in {last4}',
  removed: 'The card was removed.',
  cardsUnavailable: 'We could not look up your cards right now. Please try again later.',
  logout: 'Sign out',
  loggedOut: 'You are signed out.',
  signedInAs: 'Signed in as {who}.',
  customerNumber: 'customer {id}',
  myCards: 'My cards',
};

const IDENTITY_MESSAGES: Record<Lang, IdentityMessages> = { es, en };

/** A message of these pages with its `{name}` placeholders filled (plain text; JSX escapes it). */
export function tell(
  lang: Lang,
  key: keyof IdentityMessages,
  values: Record<string, string | number> = {},
): string {
  return IDENTITY_MESSAGES[lang][key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}
