/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { ConsoleLanguage } from '@payrail/contracts';
import type { Child } from 'hono/jsx';
import { MESSAGES } from './i18n';

/** Where the sign-in pages' stylesheet is served (a file: the console's CSP allows no inline style). */
export const AUTH_STYLESHEET = '/console/auth/style.css';

export interface AuthLayoutProps {
  lang: ConsoleLanguage;
  title: string;
  /** This page's path and query, for the language switch (`?lang=`). */
  path: string;
  operator?: boolean;
  children?: Child;
}

/** The sign-in pages' own small layout: one column, no script, its style from a file. */
export function AuthLayout(props: AuthLayoutProps) {
  const t = MESSAGES[props.lang];
  const other: ConsoleLanguage = props.lang === 'es' ? 'en' : 'es';
  const url = new URL(props.path, 'http://console');
  url.searchParams.set('lang', other);
  return (
    <html lang={props.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${props.title} · ${props.operator ? t.operatorConsole : t.console}`}</title>
        <link rel="stylesheet" href={AUTH_STYLESHEET} />
      </head>
      <body>
        <header>
          <p>{props.operator ? t.operatorConsole : t.console}</p>
        </header>
        <main>{props.children}</main>
        <footer>
          {t.language}:{' '}
          <a href={`${url.pathname}${url.search}`} hreflang={other} lang={other} data-testid="lang-switch">
            {t.otherLanguage}
          </a>
        </footer>
      </body>
    </html>
  );
}

export function htmlDocument(page: unknown): string {
  return `<!doctype html>${String(page)}`;
}
