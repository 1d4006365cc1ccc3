/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { type Lang, MESSAGES, say } from './i18n';

/**
 * Mobile first: one column, large touch targets, system fonts, colours with at least 4.5:1 contrast,
 * a visible focus ring.
 */
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7;line-height:1.5}
header{background:#123d6a;color:#fff;padding:1rem}
header p{margin:0;font-size:.9rem}
header h1{margin:.1rem 0 0;font-size:1.3rem}
main{max-width:36rem;margin:0 auto;padding:1rem}
section{background:#fff;border-radius:.5rem;padding:1rem;margin:0 0 1rem;box-shadow:0 1px 2px rgba(0,0,0,.08)}
h2{font-size:1.1rem;margin:0 0 .75rem}
.amount{font-size:1.8rem;font-weight:700;margin:.25rem 0}
.status{display:inline-block;padding:.15rem .6rem;border-radius:1rem;background:#e6e9ef;font-size:.9rem}
.status[data-status=paid]{background:#d8f0dd;color:#14532d}
.status[data-status=rejected]{background:#fde2e1;color:#7f1d1d}
.status[data-status=expired],.status[data-status=cancelled]{background:#eceff3;color:#374151}
.notice{border-left:4px solid #123d6a;padding:.5rem .75rem;background:#eef3f9}
.notice.error{border-color:#b91c1c;background:#fdecec}
fieldset{border:0;margin:0 0 1rem;padding:0}
legend{font-weight:600;margin-bottom:.5rem}
label.choice{display:flex;gap:.6rem;align-items:center;padding:.7rem;border:1px solid #9aa3af;border-radius:.4rem;margin-bottom:.5rem;cursor:pointer}
button,.button{display:block;width:100%;padding:.85rem 1rem;font-size:1.05rem;border:0;border-radius:.4rem;background:#123d6a;color:#fff;cursor:pointer;text-align:center;text-decoration:none;margin-bottom:.5rem}
button.secondary{background:#fff;color:#123d6a;border:2px solid #123d6a}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
table{width:100%;border-collapse:collapse;font-size:.95rem}
th,td{text-align:left;padding:.35rem .25rem;border-bottom:1px solid #e5e7eb}
td.num,th.num{text-align:right}
.money{white-space:nowrap}
.row-status{display:block;font-size:.85rem;color:#4b5563}
tr[data-status=cancelled] td{color:#4b5563}
tr[data-status=cancelled] .money{text-decoration:line-through}
.consent{font-weight:500}
details{margin-top:.5rem}
summary{cursor:pointer;color:#123d6a;padding:.35rem 0}
form:has(input[name=option][value=subscription]:checked) .save-card{display:none}
.keeps-card{display:none}
form:has(input[name=option][value=subscription]:checked) .keeps-card{display:block}
iframe{width:100%;height:40rem;border:1px solid #9aa3af;border-radius:.4rem;background:#fff}
footer{max-width:36rem;margin:0 auto;padding:0 1rem 2rem;font-size:.85rem;color:#4b5563}
footer a{color:#123d6a}
.subscription{border-top:1px solid #e5e7eb;padding-top:.75rem;margin-top:.75rem}
.subscription h3{margin:.25rem 0;font-size:1.05rem}
dl{margin:.5rem 0}dt{font-weight:600}dd{margin:0 0 .5rem}dd ul,.payments{margin:0;padding-left:1.1rem}
.status[data-status=past_due]{background:#fde2e1;color:#7f1d1d}
.status[data-status=active]{background:#d8f0dd;color:#14532d}
@media print{header,footer,.no-print,form,.button{display:none}body{background:#fff}section{box-shadow:none}}
`;

export interface LayoutProps {
  lang: Lang;
  nonce: string;
  /** The merchant's name, on top of every page; absent on a page that belongs to no link. */
  merchantName?: string;
  title: string;
  /** The path of this page, for the language switch (`?lang=`). */
  path: string;
  /**
   * An inline script of this page (allowed by the CSP nonce), only where a processor's iframe needs it.
   * Written by us, never built from input: it is emitted as is.
   */
  script?: string;
  /** Reloads the page after a while (waiting for the processor), without any script. */
  refresh?: { seconds: number; url: string };
  children?: Child;
}

export function Layout(props: LayoutProps) {
  const other: Lang = props.lang === 'es' ? 'en' : 'es';
  return (
    <html lang={props.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        {props.refresh ? (
          <meta http-equiv="refresh" content={`${props.refresh.seconds};url=${props.refresh.url}`} />
        ) : null}
        <title>{`${props.title} · ${props.merchantName ?? MESSAGES[props.lang].htmlTitle}`}</title>
        <style nonce={props.nonce}>{raw(STYLE)}</style>
      </head>
      <body>
        <header>
          {props.merchantName !== undefined ? (
            <>
              <p>{MESSAGES[props.lang].payTo}</p>
              <h1 data-testid="pay-merchant">{props.merchantName}</h1>
            </>
          ) : (
            <h1>{props.title}</h1>
          )}
        </header>
        <main>{props.children}</main>
        <footer>
          <p>{MESSAGES[props.lang].footer}</p>
          <p>
            {MESSAGES[props.lang].language}:{' '}
            <a
              href={`${props.path}?lang=${other}`}
              hreflang={other}
              lang={other}
              data-testid="pay-lang-switch"
            >
              {other === 'en' ? 'English' : 'Español'}
            </a>
          </p>
        </footer>
        {props.script ? <script nonce={props.nonce}>{raw(props.script)}</script> : null}
      </body>
    </html>
  );
}

/** A whole HTML document. */
export function htmlDocument(page: unknown): string {
  return `<!doctype html>${String(page)}`;
}

export { say };
