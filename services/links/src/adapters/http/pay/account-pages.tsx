/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Processor } from '@payrail/contracts';
import type { AccountPayment, AccountSubscription } from '../../../application/customer-account';
import type { VaultCard } from '../../../ports/vault-cards';
import { type AccountMessages, sayAccount } from './account-i18n';
import { CSRF_FIELD } from './csrf';
import { type Lang, MESSAGES } from './i18n';
import { tell } from './identity-i18n';
import { Layout } from './layout';
import { dateInWords } from './link-page';
import { formatMoney } from './money-format';

interface Base {
  lang: Lang;
  nonce: string;
  path: string;
  merchantName: string;
}

const STATE_TEXT: Record<string, keyof AccountMessages> = {
  active: 'stateActive',
  past_due: 'statePastDue',
  completed: 'stateCompleted',
  cancelled: 'stateCancelled',
  pending: 'statePending',
};

const shortName = (processor: Processor) => processor.replace('PARAGUAY.', '');
const PROCESSOR_TEXT = {
  'PARAGUAY.PROCESSOR_A': 'processorA',
  'PARAGUAY.PROCESSOR_B': 'processorB',
} as const;

/** `yyyy-MM-dd HH:mm:ss` (the merchant's wall clock) in words: `5 de marzo de 2027, 10:42`. */
export function dateTimeInWords(localDateTime: string, lang: Lang): string {
  const [date, time] = localDateTime.split(' ');
  return `${dateInWords(date ?? '', lang)}, ${(time ?? '').slice(0, 5)}`;
}

function Notices(props: { error?: string; notice?: string }) {
  return (
    <>
      {props.error ? (
        <p class="notice error" role="alert" data-testid="account-error">
          {props.error}
        </p>
      ) : null}
      {props.notice ? (
        <p class="notice" role="status" data-testid="account-notice">
          {props.notice}
        </p>
      ) : null}
    </>
  );
}

function InstallmentLine(props: {
  lang: Lang;
  currency: string;
  installment: AccountSubscription['view']['installments'][number];
}) {
  const { lang, installment } = props;
  const note = installment.declined
    ? ` (${sayAccount(lang, 'declinedLabel')})`
    : installment.status === 'processing'
      ? ` (${sayAccount(lang, 'processingLabel')})`
      : '';
  return (
    <li data-testid="account-installment" data-number={installment.number} data-status={installment.status}>
      {sayAccount(lang, 'installmentLine', {
        number: installment.number,
        amount: formatMoney(installment.amount, props.currency, lang),
        date: dateInWords(installment.paymentDate, lang),
      })}
      {note}
    </li>
  );
}

function SubscriptionCard(props: {
  lang: Lang;
  subscription: AccountSubscription;
  csrf: string;
  cancelAllowed: boolean;
}) {
  const { lang, subscription } = props;
  const { view } = subscription;
  const byNumber = [...view.installments].sort((a, b) => a.number - b.number);
  const paid = byNumber.filter((row) => row.status === 'paid');
  const open = byNumber
    .filter((row) => row.status === 'pending' || row.status === 'processing' || row.status === 'failed')
    .sort((a, b) =>
      a.paymentDate < b.paymentDate ? -1 : a.paymentDate > b.paymentDate ? 1 : a.number - b.number,
    );
  const [next, ...later] = open;
  const collecting = view.status === 'active' || view.status === 'past_due';
  const openEnded = view.type === 'STATIC' && view.totalPeriods === null;
  const titleId = `subscription-${view.subscriptionId}`;
  return (
    <article
      class="subscription"
      aria-labelledby={titleId}
      data-testid="account-subscription"
      data-id={view.subscriptionId}
      data-status={view.status}
    >
      <h3 id={titleId}>{subscription.label}</h3>
      <p>
        <span class="status" data-status={view.status} data-testid="account-subscription-status">
          {sayAccount(lang, STATE_TEXT[view.status] ?? 'stateActive')}
        </span>
      </p>
      <p data-testid="account-subscription-terms">
        {openEnded
          ? sayAccount(lang, 'everyMonthUntilCancelled')
          : view.totalPeriods
            ? sayAccount(lang, 'installmentsOf', { total: view.totalPeriods })
            : ''}
      </p>
      <dl>
        <dt>{sayAccount(lang, 'paidLabel')}</dt>
        <dd>
          {paid.length === 0 ? (
            sayAccount(lang, 'noneYet')
          ) : (
            <ul data-testid="account-paid">
              {paid.map((row) => (
                <InstallmentLine lang={lang} currency={view.currency} installment={row} />
              ))}
            </ul>
          )}
        </dd>
        <dt>{sayAccount(lang, 'nextLabel')}</dt>
        <dd data-testid="account-next">
          {next ? (
            <ul>
              <InstallmentLine lang={lang} currency={view.currency} installment={next} />
            </ul>
          ) : (
            sayAccount(lang, 'nothingNext')
          )}
        </dd>
        {later.length > 0 || openEnded ? (
          <>
            <dt>{sayAccount(lang, 'laterLabel')}</dt>
            <dd data-testid="account-later">
              <ul>
                {later.slice(0, 2).map((row) => (
                  <InstallmentLine lang={lang} currency={view.currency} installment={row} />
                ))}
              </ul>
              {openEnded ? (
                <p>{sayAccount(lang, 'everyMonthUntilCancelled')}</p>
              ) : later.length > 2 ? (
                <p>{sayAccount(lang, 'andMore', { count: later.length - 2 })}</p>
              ) : null}
            </dd>
          </>
        ) : null}
        <dt>{sayAccount(lang, 'cardLabel')}</dt>
        <dd data-testid="account-subscription-card" data-last4={subscription.card?.last4 ?? ''}>
          {subscription.card
            ? sayAccount(lang, 'cardUsed', { brand: subscription.card.brand, last4: subscription.card.last4 })
            : sayAccount(lang, 'noCard')}
        </dd>
      </dl>
      {collecting ? (
        <a
          class="button"
          href={`/pay/account/subscriptions/${view.subscriptionId}/card?lang=${lang}`}
          aria-label={sayAccount(lang, 'changeCardOf', { label: subscription.label })}
          data-testid="account-change-card"
        >
          {sayAccount(lang, 'changeCard')}
        </a>
      ) : null}
      {collecting && props.cancelAllowed ? (
        <form method="post" action={`/pay/account/subscriptions/${view.subscriptionId}/cancel?lang=${lang}`}>
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <p>{sayAccount(lang, 'cancelWarning')}</p>
          <button
            type="submit"
            class="secondary"
            aria-label={sayAccount(lang, 'cancelOf', { label: subscription.label })}
            data-testid="account-cancel"
          >
            {sayAccount(lang, 'cancel')}
          </button>
        </form>
      ) : null}
    </article>
  );
}

/** `/pay/account`: the customer's subscriptions, payments and cards at the session's merchant. */
export function AccountPage(
  props: Base & {
    who: string;
    csrf: string;
    subscriptions: AccountSubscription[] | undefined;
    payments: AccountPayment[] | undefined;
    cards: VaultCard[] | undefined;
    cancelAllowed: boolean;
    timezoneDateTime(at: Date): string;
    error?: string;
    notice?: string;
    logoutAction: string;
  },
) {
  const { lang } = props;
  const title = sayAccount(lang, 'pageTitle');
  return (
    <Layout lang={lang} nonce={props.nonce} path={props.path} title={title} merchantName={props.merchantName}>
      <section aria-labelledby="account-page-title">
        <h2 id="account-page-title">{title}</h2>
        <Notices error={props.error} notice={props.notice} />
        <p data-testid="account-who">{props.who}</p>
      </section>
      <section aria-labelledby="subscriptions-title">
        <h2 id="subscriptions-title">{sayAccount(lang, 'subscriptionsTitle')}</h2>
        {props.subscriptions === undefined ? (
          <p class="notice error">{sayAccount(lang, 'subscriptionsUnavailable')}</p>
        ) : props.subscriptions.length === 0 ? (
          <p>{sayAccount(lang, 'noSubscriptions')}</p>
        ) : (
          props.subscriptions.map((subscription) => (
            <SubscriptionCard
              lang={lang}
              subscription={subscription}
              csrf={props.csrf}
              cancelAllowed={props.cancelAllowed}
            />
          ))
        )}
      </section>
      <section aria-labelledby="payments-title">
        <h2 id="payments-title">{sayAccount(lang, 'paymentsTitle')}</h2>
        {props.payments === undefined ? (
          <p class="notice error">{sayAccount(lang, 'paymentsUnavailable')}</p>
        ) : props.payments.length === 0 ? (
          <p>{sayAccount(lang, 'noPayments')}</p>
        ) : (
          <ul class="payments">
            {props.payments.map((payment) => {
              const amount = formatMoney(payment.amount, payment.currency, lang);
              const when = dateTimeInWords(props.timezoneDateTime(payment.paidAt), lang);
              return (
                <li data-testid="account-payment" data-id={payment.id}>
                  <span>
                    {payment.installmentNumber
                      ? sayAccount(lang, 'installmentConcept', {
                          label: payment.label,
                          number: payment.installmentNumber,
                        })
                      : payment.label}
                    {': '}
                    <strong class="money">{amount}</strong>, {when}
                  </span>{' '}
                  <a
                    href={`/pay/account/payments/${payment.id}?lang=${lang}`}
                    aria-label={sayAccount(lang, 'receiptOf', { amount, date: when })}
                    data-testid="account-receipt"
                  >
                    {sayAccount(lang, 'receipt')}
                  </a>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <section aria-labelledby="cards-title">
        <h2 id="cards-title">{sayAccount(lang, 'cardsTitle')}</h2>
        {props.cards?.length ? (
          <ul>
            {props.cards.map((card) => (
              <li data-last4={card.last4}>
                {sayAccount(lang, 'cardUsed', { brand: card.brand, last4: card.last4 })}
              </li>
            ))}
          </ul>
        ) : null}
        <p>
          <a href={`/pay/account/cards?lang=${lang}`} data-testid="account-cards-link">
            {sayAccount(lang, 'seeCards')}
          </a>
        </p>
        <form method="post" action={props.logoutAction}>
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <button type="submit" class="secondary" data-testid="account-logout">
            {tell(lang, 'logout')}
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** `/pay/account/subscriptions/{id}/card`: a saved card, or a new one on a processor's hosted form. */
export function ChangeCardPage(
  props: Base & {
    subscription: AccountSubscription;
    csrf: string;
    action: string;
    savedCards: VaultCard[];
    processors: Processor[];
    error?: string;
  },
) {
  const { lang, subscription } = props;
  const declined = subscription.view.installments.filter((row) => row.declined);
  const title = sayAccount(lang, 'cardChangeTitle', { label: subscription.label });
  return (
    <Layout lang={lang} nonce={props.nonce} path={props.path} title={title} merchantName={props.merchantName}>
      <section aria-labelledby="change-card-title" data-testid="account-card-change">
        <h2 id="change-card-title">{title}</h2>
        <Notices error={props.error} />
        <p>{sayAccount(lang, 'cardChangeIntro')}</p>
        {declined.map((row) => (
          <p class="notice" data-testid="account-declined-installment" data-number={row.number}>
            {sayAccount(lang, 'cardChangeDeclined', {
              amount: formatMoney(row.amount, subscription.view.currency, lang),
            })}
          </p>
        ))}
        <form method="post" action={props.action} data-testid="pay-form">
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          {props.savedCards.length > 0 ? (
            <fieldset>
              <legend>{sayAccount(lang, 'savedCards')}</legend>
              {props.savedCards.map((card) => (
                <button
                  type="submit"
                  name="savedCard"
                  value={card.paymentMethodId}
                  class="secondary"
                  data-testid="pay-saved-card"
                  data-last4={card.last4}
                >
                  {sayAccount(lang, 'cardUsed', { brand: card.brand, last4: card.last4 })}
                </button>
              ))}
            </fieldset>
          ) : null}
          {props.processors.length > 0 ? (
            <fieldset>
              <legend>{sayAccount(lang, 'newCard')}</legend>
              {props.processors.map((processor, index) => (
                <label class="choice">
                  <input
                    type="radio"
                    name="processor"
                    value={processor}
                    checked={index === 0}
                    data-testid={`pay-processor-${shortName(processor)}`}
                  />
                  {MESSAGES[lang][PROCESSOR_TEXT[processor]]}
                </label>
              ))}
              <button type="submit" name="newCard" value="yes" data-testid="pay-submit">
                {sayAccount(lang, 'registerCard')}
              </button>
            </fieldset>
          ) : null}
        </form>
        <p>
          <a href={`/pay/account?lang=${lang}`} data-testid="account-back">
            {sayAccount(lang, 'back')}
          </a>
        </p>
      </section>
    </Layout>
  );
}

/**
 * PROCESSOR_A's card form inside our page: the form's result page posts a message to its parent, which is
 * followed only from a processor's origin and only to this subscription's own return path.
 */
export function AccountIframePage(
  props: Base & { formUrl: string; returnPath: string; processorOrigins: readonly string[] },
) {
  const { lang } = props;
  const origins = JSON.stringify(props.processorOrigins).replace(/</g, '\\u003c');
  const prefix = JSON.stringify(props.returnPath).replace(/</g, '\\u003c');
  const script = `(function(){var origins=${origins};var prefix=${prefix};
window.addEventListener('message',function(event){
if(origins.indexOf(event.origin)<0)return;var data=event.data;
if(!data||typeof data.return_url!=='string')return;
var target;try{target=new URL(data.return_url,window.location.href);}catch(e){return;}
if(target.pathname.indexOf(prefix)!==0)return;
window.location.assign(target.pathname+target.search);});})();`;
  const title = sayAccount(lang, 'cardFormTitle');
  return (
    <Layout
      lang={lang}
      nonce={props.nonce}
      path={props.path}
      title={title}
      merchantName={props.merchantName}
      script={script}
    >
      <section aria-labelledby="card-form-title">
        <h2 id="card-form-title">{title}</h2>
        <p>{sayAccount(lang, 'cardFormHint')}</p>
        <iframe src={props.formUrl} title={title} data-testid="pay-processor-frame" />
        <p>
          <a href={props.returnPath} data-testid="pay-continue">
            {sayAccount(lang, 'continueAfterForm')}
          </a>
        </p>
      </section>
    </Layout>
  );
}

/** `/pay/account/payments/{id}`: one payment's receipt, printable. */
export function AccountReceiptPage(props: Base & { payment: AccountPayment; when: string }) {
  const { lang, payment } = props;
  const title = sayAccount(lang, 'receiptTitle');
  const concept = payment.installmentNumber
    ? sayAccount(lang, 'installmentConcept', { label: payment.label, number: payment.installmentNumber })
    : payment.label;
  return (
    <Layout lang={lang} nonce={props.nonce} path={props.path} title={title} merchantName={props.merchantName}>
      <section aria-labelledby="receipt-title" data-testid="account-receipt-page" data-id={payment.id}>
        <h2 id="receipt-title">{title}</h2>
        <table>
          <tbody>
            <tr>
              <th scope="row">{sayAccount(lang, 'receiptMerchant')}</th>
              <td>{props.merchantName}</td>
            </tr>
            <tr>
              <th scope="row">{sayAccount(lang, 'receiptConcept')}</th>
              <td>{concept}</td>
            </tr>
            <tr>
              <th scope="row">{sayAccount(lang, 'receiptAmount')}</th>
              <td class="money" data-testid="account-receipt-amount">
                {formatMoney(payment.amount, payment.currency, lang)}
              </td>
            </tr>
            <tr>
              <th scope="row">{sayAccount(lang, 'receiptWhen')}</th>
              <td>{props.when}</td>
            </tr>
            <tr>
              <th scope="row">{sayAccount(lang, 'receiptMethod')}</th>
              <td data-testid="account-receipt-method">
                {payment.brand && payment.last4
                  ? sayAccount(lang, 'receiptCard', { brand: payment.brand, last4: payment.last4 })
                  : sayAccount(lang, 'receiptCardOnly')}
              </td>
            </tr>
            <tr>
              <th scope="row">{sayAccount(lang, 'receiptId')}</th>
              <td data-testid="account-receipt-id">{payment.id}</td>
            </tr>
          </tbody>
        </table>
        <p class="no-print">{sayAccount(lang, 'receiptPrint')}</p>
        <p class="no-print">
          <a href={`/pay/account?lang=${lang}`}>{sayAccount(lang, 'back')}</a>
        </p>
      </section>
    </Layout>
  );
}
