/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { PaymentLink } from '../../../domain/payment-link';
import { type Lang, MESSAGES, sayWith } from './i18n';
import { Layout } from './layout';
import { dateInWords } from './link-page';
import { formatMoney } from './money-format';

interface PageBase {
  lang: Lang;
  nonce: string;
  path: string;
  merchantName: string;
  link: Pick<PaymentLink, 'label' | 'amount' | 'currency' | 'slug'>;
}

/** A receipt also says, for a subscription, that the next installments are debited automatically. */
type ReceiptLink = PageBase['link'] & Pick<PaymentLink, 'recurrence' | 'singlePayment'>;

/**
 * Bancard-style checkout: the form's result page posts a message to its parent and the parent navigates.
 * We only follow a message from a processor's origin naming this link's own return path.
 */
function followProcessorMessage(processorOrigins: readonly string[], slug: string): string {
  const origins = JSON.stringify(processorOrigins).replace(/</g, '\\u003c');
  const prefix = JSON.stringify(`/pay/${encodeURIComponent(slug)}/return/`).replace(/</g, '\\u003c');
  return `(function(){var origins=${origins};var prefix=${prefix};
window.addEventListener('message',function(event){
if(origins.indexOf(event.origin)<0)return;var data=event.data;
if(!data||typeof data.return_url!=='string')return;
var target;try{target=new URL(data.return_url,window.location.href);}catch(e){return;}
if(target.pathname.indexOf(prefix)!==0)return;
window.location.assign(target.pathname+target.search);});})();`;
}

/** PROCESSOR_A's form inside our page; the rest of the page is ours (merchant, label, amount). */
export function IframePage(
  props: PageBase & {
    formUrl: string;
    returnPath: string;
    processorOrigins: readonly string[];
    /** The customer chose the subscription: the card is kept for its debits. */
    subscription?: boolean;
  },
) {
  const t = MESSAGES[props.lang];
  return (
    <Layout
      lang={props.lang}
      nonce={props.nonce}
      merchantName={props.merchantName}
      title={props.link.label}
      path={props.path}
      script={followProcessorMessage(props.processorOrigins, props.link.slug)}
    >
      <section aria-labelledby="card-form-title">
        <h2 id="card-form-title">{t.cardFormTitle}</h2>
        <p>
          <span data-testid="pay-label">{props.link.label}</span>:{' '}
          <strong class="money" data-testid="pay-amount">
            {formatMoney(props.link.amount, props.link.currency, props.lang)}
          </strong>
        </p>
        <p>{t.cardFormHint}</p>
        {props.subscription ? <p data-testid="pay-card-kept">{t.cardFormHintSubscription}</p> : null}
        <iframe src={props.formUrl} title={t.cardFormTitle} data-testid="pay-processor-frame" />
        <p>
          <a href={props.returnPath} data-testid="pay-continue">
            {t.continueAfterForm}
          </a>
        </p>
        <p>
          <a href={`/pay/${encodeURIComponent(props.link.slug)}`}>{t.cardFormCancel}</a>
        </p>
      </section>
    </Layout>
  );
}

/** The processor has not confirmed yet: the page asks again by itself (no script needed). */
export function WaitingPage(props: PageBase & { refreshPath: string }) {
  const t = MESSAGES[props.lang];
  return (
    <Layout
      lang={props.lang}
      nonce={props.nonce}
      merchantName={props.merchantName}
      title={props.link.label}
      path={props.path}
      refresh={{ seconds: 2, url: props.refreshPath }}
    >
      <section>
        <p class="status" data-testid="pay-status" data-status="pending">
          {t.statusPending}
        </p>
        <p role="status" data-testid="pay-waiting">
          {t.paymentInProgress}
        </p>
        <a class="button" href={props.refreshPath}>
          {t.refresh}
        </a>
        <p>
          <a href={`/pay/${encodeURIComponent(props.link.slug)}`} data-testid="pay-back">
            {t.backToLink}
          </a>
        </p>
      </section>
    </Layout>
  );
}

/** After payment, when the merchant gave no `redirectUrl`. */
export function ReceiptPage(
  props: Omit<PageBase, 'link'> & { link: ReceiptLink; paidOn: string | null; reference: string | null },
) {
  const t = MESSAGES[props.lang];
  const amount = formatMoney(props.link.amount, props.link.currency, props.lang);
  return (
    <Layout
      lang={props.lang}
      nonce={props.nonce}
      merchantName={props.merchantName}
      title={t.receiptTitle}
      path={props.path}
    >
      <section aria-labelledby="receipt-title" data-testid="pay-receipt">
        <h2 id="receipt-title">{t.receiptTitle}</h2>
        <p>
          <span class="status" data-testid="pay-status" data-status="paid">
            {t.statusPaid}
          </span>
        </p>
        <p>
          {sayWith(props.lang, 'receiptText', {
            amount: <span class="money">{amount}</span>,
            label: props.link.label,
          })}
        </p>
        <p class="amount money" data-testid="pay-amount">
          {amount}
        </p>
        <table>
          <tbody>
            <tr>
              <th scope="row">{t.receiptDate}</th>
              <td>{props.paidOn ? dateInWords(props.paidOn, props.lang) : ''}</td>
            </tr>
            <tr>
              <th scope="row">{t.receiptReference}</th>
              <td data-testid="pay-receipt-reference">{props.reference ?? ''}</td>
            </tr>
          </tbody>
        </table>
        {props.link.recurrence ? (
          <>
            {props.link.singlePayment ? null : <p>{t.receiptSubscription}</p>}
            <p>
              <a href={`/pay/${encodeURIComponent(props.link.slug)}`} data-testid="pay-see-plan">
                {t.receiptSeePlan}
              </a>
            </p>
          </>
        ) : null}
      </section>
    </Layout>
  );
}
