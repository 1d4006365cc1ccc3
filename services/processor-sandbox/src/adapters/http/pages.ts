// The hosted pages: plain HTML on the sandbox's own origin, with `data-testid` hooks for browser tests.

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:1.5rem auto;padding:0 1rem;color:#1b1f24}
label{display:block;margin:.6rem 0 .2rem;font-size:.9rem}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #9aa4b1;border-radius:4px}
.row{display:flex;gap:.75rem}.row>div{flex:1}
button{margin-top:1rem;width:100%;padding:.7rem;font-size:1rem;border:0;border-radius:4px;background:#1d4ed8;color:#fff;cursor:pointer}
.error{color:#b91c1c;margin:.6rem 0}.note{color:#57606a;font-size:.8rem;margin-top:1rem}
</style></head><body>${body}</body></html>`;
}

export interface CardFormOptions {
  title: string;
  /** The sandbox that shows it, e.g. "Processor A sandbox". */
  brand: string;
  action: string;
  hiddenFields: Record<string, string>;
  amountLine?: string;
  /** What the submit button does (`data-action`); its `data-testid` is always `card-submit`. */
  buttonTestId: 'pay-button' | 'save-card-button';
  buttonLabel: string;
  cancelUrl?: string;
  error?: string;
  returnLink?: string;
}

export function cardFormPage(options: CardFormOptions): string {
  const hidden = Object.entries(options.hiddenFields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return layout(
    options.title,
    `<h1 style="font-size:1.2rem">${escapeHtml(options.brand)}</h1>
${options.amountLine ? `<p data-testid="amount">${escapeHtml(options.amountLine)}</p>` : ''}
${options.error ? `<p class="error" role="alert" data-testid="form-error">${escapeHtml(options.error)}</p>` : ''}
${options.returnLink ? `<p><a data-testid="return-link" href="${escapeHtml(options.returnLink)}">Volver al comercio</a></p>` : ''}
<form method="post" action="${escapeHtml(options.action)}" autocomplete="off">${hidden}
<label for="card-number">Número de tarjeta</label>
<input id="card-number" name="card_number" data-testid="card-number" inputmode="numeric" autocomplete="off" required>
<div class="row"><div><label for="card-expiry">Vencimiento (MM/AA)</label>
<input id="card-expiry" name="card_expiry" data-testid="card-expiry" placeholder="MM/AA" autocomplete="off" required></div>
<div><label for="card-cvv">CVV</label>
<input id="card-cvv" name="card_cvv" data-testid="card-cvv" inputmode="numeric" autocomplete="off" required></div></div>
<label for="card-holder">Titular (como figura en la tarjeta)</label>
<input id="card-holder" name="card_holder" data-testid="card-holder" autocomplete="off">
<button type="submit" data-testid="card-submit" data-action="${options.buttonTestId}">${escapeHtml(options.buttonLabel)}</button>
</form>
${options.cancelUrl ? `<p><a data-testid="cancel-link" href="${escapeHtml(options.cancelUrl)}">Cancelar</a></p>` : ''}
<p class="note">Simulated processor: only test cards are accepted.</p>`,
  );
}

/** PROCESSOR_A's iframe result: tells the parent page, and goes to return_url itself when not framed. */
export function iframeResultPage(result: {
  text: string;
  message: string;
  processId: string;
  returnUrl: string;
}): string {
  const payload = JSON.stringify({
    source: 'processor-a',
    message: result.message,
    status: result.message,
    process_id: result.processId,
    return_url: result.returnUrl,
  }).replace(/</g, '\\u003c');
  return layout(
    'Resultado',
    `<p data-testid="result">${escapeHtml(result.text)}</p>
<p><a data-testid="return-link" href="${escapeHtml(result.returnUrl)}" target="_top">Continuar</a></p>
<script>
const result = ${payload};
window.parent.postMessage(result, '*');
if (window.top === window) window.location.replace(result.return_url);
</script>`,
  );
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<p data-testid="form-error" class="error">${escapeHtml(text)}</p>`);
}
