export { type ConsoleAuthSettings, consoleAuth, homeOf, SESSION_COOKIE } from './routes';
export { CSRF_COOKIE, CSRF_FIELD, CSRF_HEADER } from './csrf';
export { CONSOLE_CSP } from './security-headers';
