import type { ConsoleLanguage } from '@payrail/contracts';
import type { PasswordProblem } from '../../../../domain/access/rules';

/**
 * Every word of the console's sign-in pages, in Spanish (the default) and English. A string is added to
 * both languages or to neither: English must match Spanish's shape key by key.
 */
const es = {
  console: 'Consola de pagos',
  operatorConsole: 'Consola del operador',
  language: 'Idioma',
  otherLanguage: 'English',
  email: 'Correo electrónico',
  password: 'Contraseña',
  newPassword: 'Contraseña nueva',
  confirmPassword: 'Repetí la contraseña',
  currentPassword: 'Contraseña actual',
  name: 'Nombre',
  passwordRules: 'Al menos 12 caracteres; no uses una contraseña común.',
  loginTitle: 'Ingresar',
  operatorLoginTitle: 'Ingreso del operador',
  login: 'Ingresar',
  loginInvalid: 'Correo o contraseña incorrectos.',
  loginLocked: 'Demasiados intentos fallidos: la cuenta queda bloqueada hasta las {time} (hora UTC).',
  forgotPassword: '¿Olvidaste tu contraseña?',
  secondFactorTitle: 'Segundo factor',
  secondFactorHint:
    'Escribí el código de 6 dígitos de tu aplicación de autenticación, o un código de recuperación.',
  code: 'Código',
  verify: 'Verificar',
  codeInvalid: 'El código no es correcto o ya fue usado.',
  invitationTitle: 'Aceptar la invitación',
  invitationFor: 'Invitación para {email}.',
  invitationInvalid: 'Este enlace de invitación ya no vale (venció o ya se usó). Pedí una invitación nueva.',
  choosePassword: 'Elegir contraseña',
  enrolTitle: 'Segundo factor (opcional)',
  enrolHint:
    'Escaneá el código QR con tu aplicación de autenticación (o escribí la clave), y escribí el código que te muestra.',
  enrolSecret: 'Clave',
  enrolConfirm: 'Activar',
  enrolSkip: 'Ahora no',
  recoveryTitle: 'Códigos de recuperación',
  recoveryHint:
    'Guardalos en un lugar seguro: cada uno sirve una vez para ingresar sin tu teléfono. No se vuelven a mostrar.',
  continueToLogin: 'Ir a ingresar',
  continue: 'Continuar',
  resetTitle: 'Restablecer la contraseña',
  resetHint: 'Te enviamos un enlace para elegir una contraseña nueva.',
  resetSend: 'Enviar el enlace',
  resetSent: 'Si hay una cuenta con ese correo, le enviamos un enlace (vale una hora).',
  resetInvalid: 'Este enlace ya no vale (venció o ya se usó). Pedí uno nuevo.',
  resetDone: 'Tu contraseña cambió. Ingresá con la nueva.',
  passwordTitle: 'Cambiar la contraseña',
  passwordChange: 'Cambiar',
  passwordChanged: 'Tu contraseña cambió. Se cerraron tus otras sesiones.',
  secondFactorOn: 'El segundo factor está activo. Te quedan {count} códigos de recuperación.',
  secondFactorDisable: 'Desactivar el segundo factor',
  secondFactorDisabled: 'El segundo factor quedó desactivado.',
  wrongCurrent: 'La contraseña actual no es correcta.',
  backToConsole: 'Volver a la consola',
  forbiddenTitle: 'No permitido',
  forbiddenCsrf: 'El formulario venció o no es de esta consola. Volvé a cargar la página e intentá de nuevo.',
  problems: {
    'too-short': 'La contraseña debe tener al menos 12 caracteres.',
    'too-long': 'La contraseña es demasiado larga.',
    'too-common': 'Esa contraseña es de las más comunes: elegí otra.',
    mismatch: 'Las dos contraseñas no coinciden.',
  } satisfies Record<PasswordProblem, string>,
};

type Messages = typeof es;

const en: Messages = {
  console: 'Payments console',
  operatorConsole: 'Operator console',
  language: 'Language',
  otherLanguage: 'Español',
  email: 'E-mail',
  password: 'Password',
  newPassword: 'New password',
  confirmPassword: 'Repeat the password',
  currentPassword: 'Current password',
  name: 'Name',
  passwordRules: 'At least 12 characters; do not use a common password.',
  loginTitle: 'Sign in',
  operatorLoginTitle: 'Operator sign-in',
  login: 'Sign in',
  loginInvalid: 'Wrong e-mail or password.',
  loginLocked: 'Too many failed attempts: the account is locked until {time} (UTC).',
  forgotPassword: 'Forgot your password?',
  secondFactorTitle: 'Second factor',
  secondFactorHint: 'Type the 6-digit code of your authenticator app, or a recovery code.',
  code: 'Code',
  verify: 'Verify',
  codeInvalid: 'The code is wrong or was already used.',
  invitationTitle: 'Accept the invitation',
  invitationFor: 'Invitation for {email}.',
  invitationInvalid:
    'This invitation link no longer works (it expired or was used). Ask for a new invitation.',
  choosePassword: 'Choose the password',
  enrolTitle: 'Second factor (optional)',
  enrolHint: 'Scan the QR code with your authenticator app (or type the key), and type the code it shows.',
  enrolSecret: 'Key',
  enrolConfirm: 'Turn on',
  enrolSkip: 'Not now',
  recoveryTitle: 'Recovery codes',
  recoveryHint:
    'Keep them somewhere safe: each signs you in once without your phone. They are not shown again.',
  continueToLogin: 'Go to sign in',
  continue: 'Continue',
  resetTitle: 'Reset the password',
  resetHint: 'We send you a link to choose a new password.',
  resetSend: 'Send the link',
  resetSent: 'If there is an account with that e-mail, we sent it a link (valid one hour).',
  resetInvalid: 'This link no longer works (it expired or was used). Ask for a new one.',
  resetDone: 'Your password changed. Sign in with the new one.',
  passwordTitle: 'Change the password',
  passwordChange: 'Change',
  passwordChanged: 'Your password changed. Your other sessions were signed out.',
  secondFactorOn: 'The second factor is on. You have {count} recovery codes left.',
  secondFactorDisable: 'Turn the second factor off',
  secondFactorDisabled: 'The second factor is off.',
  wrongCurrent: 'The current password is wrong.',
  backToConsole: 'Back to the console',
  forbiddenTitle: 'Not allowed',
  forbiddenCsrf: 'The form expired or is not from this console. Reload the page and try again.',
  problems: {
    'too-short': 'The password must have at least 12 characters.',
    'too-long': 'The password is too long.',
    'too-common': 'That password is among the commonest: choose another.',
    mismatch: 'The two passwords differ.',
  },
};

export const MESSAGES: Record<ConsoleLanguage, Messages> = { es, en };

/** A message with its `{placeholders}` filled. */
export function fill(message: string, values: Record<string, string | number>): string {
  return message.replace(/\{(\w+)\}/g, (whole, name: string) => String(values[name] ?? whole));
}
