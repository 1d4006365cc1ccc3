/** The sign-in pages' stylesheet, served as a file at `AUTH_STYLESHEET` (the console's CSP allows no inline style). */
export const AUTH_CSS = `
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7;line-height:1.5}
header{background:#123d6a;color:#fff;padding:1rem}
header p{margin:0;font-size:1.2rem;font-weight:600}
main{max-width:28rem;margin:0 auto;padding:1rem}
section{background:#fff;border-radius:.5rem;padding:1rem 1.25rem;margin:1rem 0;box-shadow:0 1px 2px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:0 0 .75rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email],input[type=password],input[type=text]{width:100%;padding:.7rem;font-size:1rem;border:1px solid #6b7280;border-radius:.4rem}
button{display:block;width:100%;padding:.8rem 1rem;margin-top:1rem;font-size:1.05rem;border:0;border-radius:.4rem;background:#123d6a;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#123d6a;border:2px solid #123d6a}
a{color:#123d6a}
.hint{color:#374151;font-size:.95rem}
.notice{border-left:4px solid #123d6a;padding:.5rem .75rem;background:#eef3f9}
.notice.error{border-color:#b91c1c;background:#fdecec}
.secret{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:1.05rem;letter-spacing:.05em;word-break:break-all;background:#f3f4f6;padding:.4rem .6rem;border-radius:.3rem}
.qr{display:block;width:12rem;height:12rem;margin:.75rem auto}
ul.codes{columns:2;font-family:ui-monospace,Menlo,Consolas,monospace;padding-left:1.2rem}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
footer{max-width:28rem;margin:0 auto;padding:0 1rem 2rem;font-size:.9rem;color:#374151}
`;
