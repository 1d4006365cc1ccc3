/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Processor } from '@payrail/contracts';
import type { PayOption, PayPageStatus, ScheduledInstallment } from '../../../domain/pay-page';
import type { PaymentLink } from '../../../domain/payment-link';
import { CSRF_FIELD } from './csrf';
import { type Lang, MESSAGES, say } from './i18n';
import { tell } from './identity-i18n';
import { Layout } from './layout';
import { formatMoney } from './money-format';

/** A card of the customer's vault, as the page may show it: never more than brand, last 4 and expiry. */
export interface SavedCardView {
  paymentMethodId: string;
  processor: Processor;
  last4: string;
  brand: string;
  expiryMonth: number;
  expiryYear: number;
}

/** What the customer can do on a payable link. */
export type PayPanel =
  | { kind: 'sign-in'; href: string; noLogin: boolean }
  | {
      kind: 'choose';
      action: string;
      csrf: string;
      options: PayOption[];
      processors: Processor[];
      savedCards: SavedCardView[];
    };

export interface LinkPageProps {
  lang: Lang;
  nonce: string;
  path: string;
  merchantName: string;
  link: Pick<PaymentLink, 'label' | 'amount' | 'currency' | 'recurrence'>;
  status: PayPageStatus;
  /** Why the last attempt was declined, already in the customer's words (statusId 5). */
  declineReason?: string;
  schedule: ScheduledInstallment[];
  /** Present only while the link is payable. */
  panel?: PayPanel;
}

const STATUS_TEXT = {
  pending: 'statusPending',
  rejected: 'statusRejected',
  paid: 'statusPaid',
  expired: 'statusExpired',
  cancelled: 'statusCancelled',
} as const;

/** `2027-01-05` → `5 de enero de 2027` / `January 5, 2027`. */
export function dateInWords(date: string, lang: Lang): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const monthName = MESSAGES[lang].months[month - 1] ?? String(month);
  return lang === 'es' ? `${day} de ${monthName} de ${year}` : `${monthName} ${day}, ${year}`;
}

function monthInWords(date: string, lang: Lang): string {
  const [year, month] = date.split('-').map(Number) as [number, number];
  const monthName = MESSAGES[lang].months[month - 1] ?? String(month);
  return lang === 'es' ? `${monthName} de ${year}` : `${monthName} ${year}`;
}

/** The table shows the first rows and says how many follow: a short table, not a year of lines. */
const SCHEDULE_ROWS_SHOWN = 6;

function Schedule(props: { lang: Lang; link: LinkPageProps['link']; rows: ScheduledInstallment[] }) {
  const { lang, link, rows } = props;
  const money = (amount: string) => formatMoney(amount, link.currency, lang);
  const terms = link.recurrence;
  if (!terms) return null;
  let words: string;
  const openEnded = terms.type === 'STATIC' && terms.totalPeriods === null;
  if (terms.type === 'DYNAMIC') {
    words = say(lang, 'scheduleDynamic', { first: money(link.amount) });
  } else if (openEnded) {
    // No number of installments: every month until the subscription is cancelled.
    words = say(lang, 'scheduleOpenEnded', {
      first: money(link.amount),
      installment: money(terms.installmentAmount),
      day: terms.dayOfMonth,
      month: monthInWords(rows[1]?.date ?? '', lang),
    });
  } else if (rows.length <= 1) {
    words = say(lang, 'scheduleSinglePeriod', { first: money(link.amount) });
  } else {
    words = say(lang, 'scheduleInWords', {
      first: money(link.amount),
      count: rows.length - 1,
      installment: money(terms.installmentAmount),
      day: terms.dayOfMonth,
      month: monthInWords(rows[1]?.date ?? '', lang),
    });
  }
  const shown = rows.slice(0, SCHEDULE_ROWS_SHOWN);
  return (
    <section aria-labelledby="schedule-title" data-testid="pay-schedule">
      <h2 id="schedule-title">{MESSAGES[lang].scheduleTitle}</h2>
      <p data-testid="pay-schedule-words">{words}</p>
      {shown.length > 1 ? (
        <table data-testid="pay-schedule-table">
          <thead>
            <tr>
              <th scope="col">{MESSAGES[lang].scheduleInstallment}</th>
              <th scope="col">{MESSAGES[lang].scheduleDate}</th>
              <th scope="col" class="num">
                {MESSAGES[lang].scheduleAmount}
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <tr>
                <td>{row.number}</td>
                <td>{row.date ? dateInWords(row.date, lang) : MESSAGES[lang].scheduleToday}</td>
                <td class="num">{money(row.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {openEnded ? (
        <p>{MESSAGES[lang].scheduleMoreUntilCancelled}</p>
      ) : rows.length > shown.length ? (
        <p>{say(lang, 'scheduleMore', { count: rows.length - shown.length })}</p>
      ) : null}
    </section>
  );
}

const PROCESSOR_TEXT = {
  'PARAGUAY.PROCESSOR_A': 'processorA',
  'PARAGUAY.PROCESSOR_B': 'processorB',
} as const;

/** `PARAGUAY.PROCESSOR_A` → `PROCESSOR_A`, the suffix of its test id. */
const shortName = (processor: Processor) => processor.replace('PARAGUAY.', '');

function ChoosePanel(props: {
  lang: Lang;
  amountText: string;
  panel: Extract<PayPanel, { kind: 'choose' }>;
}) {
  const { lang, panel } = props;
  const t = MESSAGES[lang];
  return (
    <section aria-labelledby="choose-title">
      <h2 id="choose-title">{t.chooseHowTitle}</h2>
      <form method="post" action={panel.action} data-testid="pay-form">
        <input type="hidden" name={CSRF_FIELD} value={panel.csrf} />
        <fieldset>
          <legend>{t.paymentType}</legend>
          {panel.options.map((option, index) => (
            <label class="choice">
              <input
                type="radio"
                name="option"
                value={option}
                checked={index === 0}
                data-testid={`pay-option-${option}`}
              />
              {option === 'single' ? t.optionSingle : t.optionSubscription}
            </label>
          ))}
          {panel.options.includes('subscription') ? <p>{t.subscriptionNeedsCard}</p> : null}
        </fieldset>
        {panel.savedCards.length > 0 ? (
          <fieldset>
            <legend>{t.savedCards}</legend>
            {panel.savedCards.map((card) => (
              <button
                type="submit"
                name="savedCard"
                value={card.paymentMethodId}
                class="secondary"
                data-testid="pay-saved-card"
                data-last4={card.last4}
              >
                {say(lang, 'savedCardLabel', {
                  brand: card.brand,
                  last4: card.last4,
                  expiry: `${String(card.expiryMonth).padStart(2, '0')}/${String(card.expiryYear % 100).padStart(2, '0')}`,
                })}
              </button>
            ))}
          </fieldset>
        ) : null}
        {panel.processors.length > 0 ? (
          <fieldset>
            <legend>{panel.savedCards.length > 0 ? t.newCard : t.chooseProcessor}</legend>
            {panel.processors.map((processor, index) => (
              <label class="choice">
                <input
                  type="radio"
                  name="processor"
                  value={processor}
                  checked={index === 0}
                  data-testid={`pay-processor-${shortName(processor)}`}
                />
                {t[PROCESSOR_TEXT[processor]]}
              </label>
            ))}
            <label class="choice">
              <input type="checkbox" name="saveCard" value="yes" data-testid="pay-save-card" />
              {t.saveCard}
            </label>
            <button type="submit" name="newCard" value="yes" data-testid="pay-submit">
              {say(lang, 'pay', { amount: props.amountText })}
            </button>
          </fieldset>
        ) : (
          <p class="notice error">{t.noProcessor}</p>
        )}
      </form>
      <p>
        <a href={`/pay/account/cards?lang=${lang}`} data-testid="pay-account-cards">
          {tell(lang, 'myCards')}
        </a>
      </p>
    </section>
  );
}

/** `GET /pay/{slug}`: who is paid, what, how much, its status, and (while payable) how to pay. */
export function LinkPage(props: LinkPageProps) {
  const { lang } = props;
  const t = MESSAGES[lang];
  const amountText = formatMoney(props.link.amount, props.link.currency, lang);
  return (
    <Layout
      lang={lang}
      nonce={props.nonce}
      merchantName={props.merchantName}
      title={props.link.label}
      path={props.path}
    >
      <section aria-labelledby="pay-label">
        <h2 id="pay-label" data-testid="pay-label">
          {props.link.label}
        </h2>
        <p class="amount" data-testid="pay-amount">
          {amountText}
        </p>
        <p>
          <span class="status" data-testid="pay-status" data-status={props.status}>
            {t[STATUS_TEXT[props.status]]}
          </span>
        </p>
        {props.status === 'paid' ? (
          <p class="notice" role="status">
            {t.alreadyPaid}
          </p>
        ) : null}
        {props.status === 'expired' ? (
          <p class="notice" role="status">
            {t.expiredNothingToPay}
          </p>
        ) : null}
        {props.status === 'cancelled' ? (
          <p class="notice" role="status">
            {t.cancelledNothingToPay}
          </p>
        ) : null}
        {props.status === 'rejected' ? (
          <p class="notice error" role="alert" data-testid="pay-decline-reason">
            {say(lang, 'rejectedTryAgain', { reason: props.declineReason ?? t.declineUnknown })}
          </p>
        ) : null}
      </section>
      <Schedule lang={lang} link={props.link} rows={props.schedule} />
      {props.panel?.kind === 'sign-in' ? (
        <section>
          <p>{props.panel.noLogin ? t.identifyNeeded : t.loginNeeded}</p>
          <a class="button" href={props.panel.href} data-testid="pay-sign-in">
            {props.panel.noLogin ? t.identify : t.login}
          </a>
        </section>
      ) : null}
      {props.panel?.kind === 'choose' ? (
        <ChoosePanel lang={lang} amountText={amountText} panel={props.panel} />
      ) : null}
    </Layout>
  );
}

/** A page with a title and one paragraph (not found, forbidden, form expired). */
export function MessagePage(props: {
  lang: Lang;
  nonce: string;
  path: string;
  title: string;
  text: string;
  merchantName?: string;
}) {
  return (
    <Layout
      lang={props.lang}
      nonce={props.nonce}
      title={props.title}
      path={props.path}
      merchantName={props.merchantName}
    >
      <section>
        <h2>{props.title}</h2>
        <p>{props.text}</p>
      </section>
    </Layout>
  );
}

/** The customer's words for a decline, by the processor-gateway's category. */
export function declineReason(lang: Lang, decline: { code: string; category: string } | null | undefined) {
  const t = MESSAGES[lang];
  if (!decline) return t.declineUnknown;
  if (decline.code === 'CANCELLED') return t.declineCancelled;
  switch (decline.category) {
    case 'soft':
      return t.declineSoft;
    case 'hard':
      return t.declineHard;
    case 'card-blocked':
      return t.declineBlocked;
    case 'processor-down':
      return t.declineProcessorDown;
    default:
      return t.declineUnknown;
  }
}
