/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { CONSOLE_AUTH_PATHS, type ConsoleLanguage, type ConsoleUser } from '../console-context';
import { ASSET_PATHS } from './assets';
import { type Messages, messages } from './i18n';

/** The sections of a merchant's console, in the navigation's order, each with its `nav-*` hook. */
export const MERCHANT_SECTIONS = [
  'home',
  'links',
  'subscriptions',
  'payments',
  'customers',
  'developers',
  'settings',
] as const;
export type MerchantSection = (typeof MERCHANT_SECTIONS)[number];

export const OPERATOR_SECTIONS = ['merchants', 'billing-runs'] as const;
export type OperatorSection = (typeof OPERATOR_SECTIONS)[number];

export type Section = MerchantSection | OperatorSection;

const SECTION_PATHS: Record<Section, string> = {
  home: '/console',
  links: '/console/links',
  subscriptions: '/console/subscriptions',
  payments: '/console/payments',
  customers: '/console/customers',
  developers: '/console/developers',
  settings: '/console/settings',
  merchants: '/console/operator',
  'billing-runs': '/console/operator/billing-runs',
};

const SECTION_TITLE: Record<Section, keyof Messages['nav']> = {
  home: 'home',
  links: 'links',
  subscriptions: 'subscriptions',
  payments: 'payments',
  customers: 'customers',
  developers: 'developers',
  settings: 'settings',
  merchants: 'merchants',
  'billing-runs': 'billingRuns',
};

export interface LayoutProps {
  lang: ConsoleLanguage;
  user: ConsoleUser;
  csrf: string;
  /** The merchant's name (merchant users), in the bar on top. */
  merchantName?: string;
  title: string;
  section: Section;
  /** The page's own path and query, where the language switch comes back to. */
  back: string;
  children?: Child;
}

/**
 * Every signed-in page: the bar (who, language, sign out), the navigation of the user's console, the
 * page. No inline style or script: the style sheet and the script are files (`assets.ts`).
 */
export function Layout(props: LayoutProps) {
  const t = messages(props.lang);
  const other: ConsoleLanguage = props.lang === 'es' ? 'en' : 'es';
  const sections = props.user.kind === 'operator' ? OPERATOR_SECTIONS : MERCHANT_SECTIONS;
  return (
    <html lang={props.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>{`${props.title} · ${props.merchantName ?? t.operatorConsole}`}</title>
        <link rel="stylesheet" href={ASSET_PATHS.css} />
        <script src={ASSET_PATHS.js} defer />
      </head>
      <body>
        <a class="skip" href="#content">
          {t.skipToContent}
        </a>
        <header class="top">
          <a class="brand" href={props.user.kind === 'operator' ? '/console/operator' : '/console'}>
            {props.user.kind === 'operator' ? t.operatorConsole : (props.merchantName ?? t.console)}
          </a>
          <span class="who" data-testid="console-user">
            {props.user.name ?? props.user.email}
            {props.user.kind === 'merchant-user' ? ` · ${t.roles[props.user.role]}` : ''}
          </span>
          <form method="post" action="/console/language">
            <input type="hidden" name="csrf" value={props.csrf} />
            <input type="hidden" name="back" value={props.back} />
            <input type="hidden" name="lang" value={other} />
            <button type="submit" lang={other} data-testid="lang-switch">
              {other === 'en' ? 'English' : 'Español'}
            </button>
          </form>
          <form method="post" action={CONSOLE_AUTH_PATHS.logout}>
            <input type="hidden" name="csrf" value={props.csrf} />
            <button type="submit" data-testid="logout">
              {t.logout}
            </button>
          </form>
        </header>
        <div class="shell">
          <nav class="main" aria-label={t.navLabel}>
            <ul>
              {sections.map((section) => (
                <li>
                  <a
                    href={SECTION_PATHS[section]}
                    data-testid={`nav-${section}`}
                    aria-current={section === props.section ? 'page' : undefined}
                  >
                    {t.nav[SECTION_TITLE[section]]}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <main id="content">{props.children}</main>
        </div>
      </body>
    </html>
  );
}

/** A whole HTML document. */
export function htmlDocument(page: unknown): string {
  return `<!doctype html>${String(page)}`;
}
