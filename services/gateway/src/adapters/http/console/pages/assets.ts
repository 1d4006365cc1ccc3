import { createHash } from 'node:crypto';
import { Hono } from 'hono';

/**
 * The console's style sheet and its one small script, served as files (`/console/assets/*`): the pages'
 * Content-Security-Policy allows styles and scripts from the console's own origin only, never inline.
 *
 * Mobile first: one column up to 48rem (a 390 px phone), a table's rows become cards there (each cell
 * says its column with `data-label`) and the navigation wraps into rows (every section in sight, never
 * scrolled sideways); from 48rem the navigation is a sidebar. System fonts, text with at least 4.5:1
 * contrast, a visible focus ring, touch targets of at least 2.75rem.
 */
export const CONSOLE_CSS = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7;line-height:1.5;font-size:1rem}
a{color:#0b4f8a}
a:hover{color:#123d6a}
:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip:focus{left:.5rem}
.top{background:#123d6a;color:#fff;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.6rem 1rem}
.top .brand{font-weight:700;font-size:1.1rem;color:#fff;text-decoration:none;margin-right:auto}
.top .who{font-size:.9rem;color:#dbe6f3;overflow-wrap:anywhere}
.top form{margin:0}
.top button,.top .linkish{background:transparent;color:#fff;border:1px solid #9fb8d6;border-radius:.4rem;padding:.45rem .8rem;font-size:.9rem;cursor:pointer;min-height:2.5rem;text-decoration:none;display:inline-flex;align-items:center}
nav.main{background:#0f3259}
nav.main ul{list-style:none;margin:0;padding:0 .5rem;display:flex;flex-wrap:wrap;gap:0 .25rem}
nav.main a{display:block;color:#fff;text-decoration:none;padding:.6rem .65rem;white-space:nowrap;border-bottom:3px solid transparent}
nav.main a[aria-current=page]{border-bottom-color:#fbbf24;font-weight:600}
main{padding:1rem;max-width:80rem}
h1{font-size:1.4rem;margin:.25rem 0 1rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
h3{font-size:1rem;margin:1rem 0 .5rem}
.card{background:#fff;border-radius:.5rem;padding:1rem;margin:0 0 1rem;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(10.5rem,1fr));gap:.75rem;margin:0 0 1rem}
.tile{background:#fff;border-radius:.5rem;padding:.8rem 1rem;box-shadow:0 1px 2px rgba(0,0,0,.08);color:inherit;text-decoration:none;display:block}
a.tile:hover{box-shadow:0 0 0 2px #0b4f8a}
a.tile .value{color:#0b4f8a}
.tile .label{font-size:.85rem;color:#4b5563;display:block}
.tile .value{font-size:1.5rem;font-weight:700;display:block;overflow-wrap:anywhere}
.tile .sub{font-size:.85rem;color:#4b5563}
.pagehead{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between}
.pagehead h1{margin-bottom:.5rem}
.tabs{display:flex;flex-wrap:wrap;gap:.25rem .5rem;margin:0 0 1rem;padding:0;list-style:none}
.tabs a{display:inline-block;padding:.45rem .8rem;border-radius:1rem;background:#e6e9ef;color:#1f2937;text-decoration:none}
.tabs a[aria-current=page]{background:#123d6a;color:#fff}
.button,button{display:inline-flex;align-items:center;justify-content:center;gap:.4rem;min-height:2.75rem;padding:.5rem 1rem;font-size:1rem;border:2px solid #123d6a;border-radius:.4rem;background:#123d6a;color:#fff;cursor:pointer;text-decoration:none;font-family:inherit}
.button.secondary,button.secondary{background:#fff;color:#123d6a}
button.danger,.button.danger{background:#a61b1b;border-color:#a61b1b;color:#fff}
button.small,.button.small{min-height:2.25rem;padding:.25rem .7rem;font-size:.9rem}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}
.actions form{margin:0}
form.filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.5rem .75rem;align-items:end}
form.filters .actions{margin:0}
label{display:block;font-weight:600;font-size:.9rem;margin:0 0 .2rem}
.field{margin:0 0 .75rem}
.hint{display:block;font-size:.85rem;color:#4b5563;font-weight:400}
input[type=text],input[type=email],input[type=number],input[type=date],input[type=url],input[type=password],input[type=search],input[type=datetime-local],select,textarea{width:100%;padding:.55rem .6rem;font-size:1rem;border:1px solid #6b7280;border-radius:.35rem;background:#fff;color:#1a1a1a;font-family:inherit;min-height:2.75rem}
textarea{min-height:5rem}
fieldset{border:1px solid #d1d5db;border-radius:.4rem;margin:0 0 1rem;padding:.5rem .9rem .25rem}
legend{font-weight:600;padding:0 .3rem}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.35rem 0}
.check input{width:1.2rem;height:1.2rem;flex:none}
.confirm{margin:.5rem 0}
.grid2{display:grid;grid-template-columns:1fr;gap:0 1rem;align-items:end}
.notice{border-left:4px solid #123d6a;padding:.6rem .8rem;background:#eef3f9;margin:0 0 1rem;border-radius:.25rem}
.notice.ok{border-color:#15803d;background:#ecf8ef}
.notice.error{border-color:#b91c1c;background:#fdecec}
.notice ul{margin:.25rem 0 0;padding-left:1.2rem}
.muted{color:#4b5563}
.money{white-space:nowrap;font-variant-numeric:tabular-nums}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92rem;overflow-wrap:anywhere}
.badge{display:inline-block;padding:.1rem .55rem;border-radius:1rem;background:#e6e9ef;color:#1f2937;font-size:.85rem;white-space:nowrap}
.badge[data-tone=good]{background:#d8f0dd;color:#14532d}
.badge[data-tone=bad]{background:#fde2e1;color:#7f1d1d}
.badge[data-tone=warn]{background:#fef3c7;color:#78350f}
.badge[data-tone=info]{background:#dbeafe;color:#1e3a8a}
table{width:100%;border-collapse:collapse;font-size:.95rem;background:#fff;margin:0 0 1rem}
caption{text-align:left;font-weight:600;padding:.25rem 0 .5rem}
th,td{text-align:left;padding:.5rem .5rem;border-bottom:1px solid #e5e7eb;vertical-align:top}
th{font-size:.85rem;color:#374151;background:#f9fafb}
td.num,th.num{text-align:right}
dl.facts{display:grid;grid-template-columns:minmax(8rem,14rem) 1fr;gap:.35rem 1rem;margin:0}
dl.facts dt{color:#4b5563}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.copy{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.copy output,.copy code{background:#f3f4f6;border:1px solid #d1d5db;border-radius:.35rem;padding:.45rem .6rem;overflow-wrap:anywhere;flex:1 1 16rem}
.qr{display:block;width:12rem;height:12rem;background:#fff}
.pager{display:flex;gap:.75rem;align-items:center;margin:1rem 0}
details{margin:.5rem 0}
summary{cursor:pointer;color:#0b4f8a;padding:.35rem 0;font-weight:600}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f4f6;padding:.5rem;border-radius:.35rem;font-size:.85rem;max-height:20rem;overflow:auto}
.empty{padding:1rem;color:#4b5563;background:#fff;border-radius:.5rem}
footer.foot{padding:1rem;color:#4b5563;font-size:.85rem}
figure.chart{margin:0 0 1rem}
figure.chart figcaption{margin:0 0 .5rem}
figure.chart svg{display:block;width:100%;height:auto;max-height:16rem}
@media (max-width:47.99rem){
  table.rows thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
  table.rows,table.rows tbody,table.rows tr,table.rows td{display:block;width:100%}
  table.rows tr{border:1px solid #e5e7eb;border-radius:.5rem;margin:0 0 .6rem;padding:.35rem .25rem;background:#fff}
  table.rows td{border:0;padding:.2rem .5rem;display:grid;grid-template-columns:7.5rem 1fr;gap:.5rem;text-align:left}
  table.rows td.num{text-align:left}
  table.rows td::before{content:attr(data-label);color:#4b5563;font-size:.85rem}
  table.rows caption{display:block;width:100%}
  table.rows{background:transparent}
  dl.facts{grid-template-columns:1fr}
  dl.facts dd{margin-bottom:.4rem}
}
@media (min-width:48rem){
  .shell{display:grid;grid-template-columns:14rem 1fr;min-height:calc(100vh - 3.5rem)}
  nav.main ul{flex-direction:column;flex-wrap:nowrap;gap:.25rem;padding:1rem .5rem}
  nav.main a{padding:.7rem .75rem;border-bottom:0;border-left:3px solid transparent;border-radius:.25rem}
  nav.main a[aria-current=page]{border-left-color:#fbbf24;background:#123d6a}
  main{padding:1.25rem 2rem}
  .grid2{grid-template-columns:1fr 1fr}
}
`;

/**
 * The only script of the console: a "copy" button copies the text of the element its `data-copy` names.
 * Everything works without it (the text is selectable); it only saves a step.
 */
export const CONSOLE_JS = `
document.addEventListener('click', function (event) {
  var button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    var done = button.getAttribute('data-copied');
    if (done) { button.setAttribute('data-label', button.textContent); button.textContent = done; }
  });
});
document.querySelectorAll('[data-copy]').forEach(function (button) { button.hidden = false; });
`;

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** The assets' URLs carry a hash of their content, so they can be cached for a year. */
export const ASSET_PATHS = {
  css: `/console/assets/console-${version(CONSOLE_CSS)}.css`,
  js: `/console/assets/console-${version(CONSOLE_JS)}.js`,
} as const;

/** `GET /console/assets/*`: public (the sign-in pages use the style sheet too). */
export function consoleAssets() {
  const assets = new Hono();
  const serve = (body: string, type: string) => () =>
    new Response(body, {
      headers: {
        'content-type': type,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      },
    });
  assets.get(ASSET_PATHS.css, serve(CONSOLE_CSS, 'text/css; charset=utf-8'));
  assets.get(ASSET_PATHS.js, serve(CONSOLE_JS, 'text/javascript; charset=utf-8'));
  return assets;
}
