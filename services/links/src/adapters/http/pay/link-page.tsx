/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Processor } from '@payrail/contracts';
import type { LinkSchedule } from '../../../application/link-schedule';
import {
  type InstallmentState,
  type PayOption,
  type PayPageStatus,
  rowsToCome,
  type ScheduleRow,
  type ScheduleSituation,
  scheduleSituation,
} from '../../../domain/pay-page';
import type { PaymentLink } from '../../../domain/payment-link';
import { CSRF_FIELD } from './csrf';
import { type Lang, MESSAGES, say, sayWith } from './i18n';
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
  /** A subscription's schedule as it is now (undefined for a one-off link). */
  schedule?: LinkSchedule;
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

/** An amount in its own element, never broken across lines (`.money`: `white-space: nowrap`). */
export function Money(props: { amount: string; currency: string; lang: Lang }) {
  return <span class="money">{formatMoney(props.amount, props.currency, props.lang)}</span>;
}

/** The table shows this many rows; the rest are one tap away (a `<details>`, no script). */
const SCHEDULE_ROWS_SHOWN = 12;

const ROW_STATUS_TEXT: Record<InstallmentState, keyof typeof MESSAGES.es> = {
  pending: 'rowPending',
  processing: 'rowProcessing',
  paid: 'rowPaid',
  failed: 'rowFailed',
  cancelled: 'rowCancelled',
};

/** `2027-01-05` → 5 (the day of the month of a calendar day). */
const dayOf = (date: string | null) => (date ? Number(date.slice(8, 10)) : 0);

function ScheduleRows(props: {
  lang: Lang;
  currency: string;
  rows: ScheduleRow[];
  situation: ScheduleSituation;
}) {
  const t = MESSAGES[props.lang];
  return (
    <>
      {props.rows.map((row) => {
        // Before the first payment every installment is to be debited: only a change (cancelled) is said.
        const statusShown = props.situation !== 'offer' || row.status !== 'pending';
        return (
          <tr
            data-testid="pay-schedule-row"
            data-number={String(row.number)}
            data-status={row.status}
            data-date={row.date ?? ''}
            data-amount={row.amount}
          >
            <td>{row.number}</td>
            <td>
              {row.date ? dateInWords(row.date, props.lang) : t.scheduleToday}
              {statusShown ? <span class="row-status">{String(t[ROW_STATUS_TEXT[row.status]])}</span> : null}
            </td>
            <td class="num">
              <Money amount={row.amount} currency={props.currency} lang={props.lang} />
            </td>
          </tr>
        );
      })}
    </>
  );
}

function ScheduleTable(props: {
  lang: Lang;
  currency: string;
  rows: ScheduleRow[];
  situation: ScheduleSituation;
}) {
  const t = MESSAGES[props.lang];
  const head = (
    <thead>
      <tr>
        <th scope="col">{t.scheduleInstallment}</th>
        <th scope="col">{t.scheduleDate}</th>
        <th scope="col" class="num">
          {t.scheduleAmount}
        </th>
      </tr>
    </thead>
  );
  const shown = props.rows.slice(0, SCHEDULE_ROWS_SHOWN);
  const rest = props.rows.slice(SCHEDULE_ROWS_SHOWN);
  return (
    <>
      <table data-testid="pay-schedule-table">
        {head}
        <tbody>
          <ScheduleRows {...props} rows={shown} />
        </tbody>
      </table>
      {rest.length > 0 ? (
        <details data-testid="pay-schedule-rest">
          <summary>
            {rest.length === 1
              ? MESSAGES[props.lang].scheduleRestOne
              : say(props.lang, 'scheduleRest', { count: rest.length })}
          </summary>
          <table>
            {head}
            <tbody>
              <ScheduleRows {...props} rows={rest} />
            </tbody>
          </table>
        </details>
      ) : null}
    </>
  );
}

/** What the plan is, in words, before the first payment (what the customer agrees to by subscribing). */
function offerWords(
  lang: Lang,
  link: LinkPageProps['link'],
  rows: ScheduleRow[],
  type: 'STATIC' | 'DYNAMIC',
  openEnded: boolean,
) {
  const money = (amount: string) => <Money amount={amount} currency={link.currency} lang={lang} />;
  const first = money(rows[0]?.amount ?? link.amount);
  if (type === 'DYNAMIC') return sayWith(lang, 'scheduleDynamic', { first });
  const toCome = rows.filter((row) => row.number > 1 && row.status !== 'cancelled');
  const next = toCome[0];
  if (!next) return sayWith(lang, 'scheduleSinglePeriod', { first });
  const uniform = toCome.every((row) => row.amount === next.amount && dayOf(row.date) === dayOf(next.date));
  if (uniform && openEnded) {
    return sayWith(lang, 'scheduleOpenEnded', {
      first,
      installment: money(next.amount),
      day: dayOf(next.date),
      month: monthInWords(next.date ?? '', lang),
    });
  }
  if (uniform) {
    return sayWith(lang, 'scheduleInWords', {
      first,
      count: toCome.length,
      installment: money(next.amount),
      day: dayOf(next.date),
      month: monthInWords(next.date ?? '', lang),
    });
  }
  return sayWith(lang, 'scheduleVaried', { first, count: toCome.length });
}

/** What is still to come, in words, after the first payment. */
function toComeWords(
  lang: Lang,
  rows: ScheduleRow[],
  type: 'STATIC' | 'DYNAMIC',
  openEnded: boolean,
): string {
  if (type === 'DYNAMIC') return MESSAGES[lang].scheduleToComeDynamic;
  if (openEnded) return MESSAGES[lang].scheduleToComeOpenEnded;
  const count = rowsToCome(rows).length;
  if (count === 0) return MESSAGES[lang].scheduleNothingToCome;
  return count === 1 ? MESSAGES[lang].scheduleToComeOne : say(lang, 'scheduleToCome', { count });
}

/**
 * The subscription's part of the page: before the first payment, the plan as it is now and the customer's
 * consent to its automatic debits; after it, that the first payment is made and what is still to come.
 */
function Schedule(props: {
  lang: Lang;
  link: LinkPageProps['link'];
  status: PayPageStatus;
  schedule: LinkSchedule;
}) {
  const { lang, link } = props;
  const t = MESSAGES[lang];
  if (props.schedule.kind === 'unavailable') {
    if (props.status !== 'pending' && props.status !== 'rejected' && props.status !== 'paid') return null;
    return (
      <section aria-labelledby="schedule-title" data-testid="pay-schedule">
        <h2 id="schedule-title">{t.scheduleTitle}</h2>
        <p class="notice error" role="alert" data-testid="pay-schedule-unavailable">
          {t.scheduleUnavailable}
        </p>
      </section>
    );
  }
  const { rows, type, openEnded } = props.schedule.schedule;
  const situation = scheduleSituation(props.status, props.schedule.schedule.status);
  if (situation === 'none') return null;
  let lead: unknown = null;
  let words: unknown;
  let consent: string | null = null;
  switch (situation) {
    case 'offer':
      words = offerWords(lang, link, rows, type, openEnded);
      consent = type === 'DYNAMIC' ? t.scheduleConsentDynamic : t.scheduleConsent;
      break;
    case 'collecting':
      lead = t.firstPaymentMade;
      words = toComeWords(lang, rows, type, openEnded);
      break;
    case 'completed':
      lead = t.firstPaymentMade;
      words = t.scheduleCompleted;
      break;
    case 'cancelled':
      lead = t.firstPaymentMade;
      words = t.scheduleCancelled;
      break;
  }
  return (
    <section aria-labelledby="schedule-title" data-testid="pay-schedule" data-situation={situation}>
      <h2 id="schedule-title">{t.scheduleTitle}</h2>
      {lead ? (
        <p class="notice" role="status" data-testid="pay-first-payment">
          {lead}
        </p>
      ) : null}
      <p data-testid="pay-schedule-words">{words}</p>
      {consent ? (
        <p class="notice consent" data-testid="pay-schedule-consent">
          {consent}
        </p>
      ) : null}
      {rows.length > 1 ? (
        <ScheduleTable lang={lang} currency={link.currency} rows={rows} situation={situation} />
      ) : null}
      {openEnded && rows.length > 1 && (situation === 'offer' || situation === 'collecting') ? (
        <p data-testid="pay-schedule-until-cancelled">{t.scheduleMoreUntilCancelled}</p>
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

function ChoosePanel(props: { lang: Lang; amount: unknown; panel: Extract<PayPanel, { kind: 'choose' }> }) {
  const { lang, panel } = props;
  const t = MESSAGES[lang];
  const single = panel.options.includes('single');
  const subscription = panel.options.includes('subscription');
  // Both offered: the box and the note follow the chosen option (CSS `:has`, no script).
  const both = single && subscription;
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
          {subscription ? <p>{t.subscriptionNeedsCard}</p> : null}
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
            {single ? (
              // A subscription keeps the card anyway: the box is offered for a one-off payment only.
              <label class={both ? 'choice save-card' : 'choice'}>
                <input type="checkbox" name="saveCard" value="yes" data-testid="pay-save-card" />
                {t.saveCard}
              </label>
            ) : null}
            {subscription ? (
              <p class={both ? 'keeps-card' : undefined} data-testid="pay-keeps-card">
                {t.subscriptionKeepsCard}
              </p>
            ) : null}
            <button type="submit" name="newCard" value="yes" data-testid="pay-submit">
              {sayWith(lang, 'pay', { amount: props.amount })}
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
  const situation =
    props.schedule?.kind === 'known'
      ? scheduleSituation(props.status, props.schedule.schedule.status)
      : 'none';
  // A paid subscription: its first payment is made, and its page says what is still to come.
  const subscribed = situation === 'collecting' || situation === 'completed' || situation === 'cancelled';
  // Nothing more to pay only where that is true: a one-off payment, or a plan whose state the page knows.
  const nothingMore = props.status === 'paid' && !subscribed && props.schedule?.kind !== 'unavailable';
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
        <p class="amount money" data-testid="pay-amount">
          {amountText}
        </p>
        <p>
          <span class="status" data-testid="pay-status" data-status={props.status}>
            {subscribed ? t.statusFirstPaid : t[STATUS_TEXT[props.status]]}
          </span>
        </p>
        {nothingMore ? (
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
      {props.schedule ? (
        <Schedule lang={lang} link={props.link} status={props.status} schedule={props.schedule} />
      ) : null}
      {props.panel?.kind === 'sign-in' ? (
        <section>
          <p>{props.panel.noLogin ? t.identifyNeeded : t.loginNeeded}</p>
          <a class="button" href={props.panel.href} data-testid="pay-sign-in">
            {props.panel.noLogin ? t.identify : t.login}
          </a>
        </section>
      ) : null}
      {props.panel?.kind === 'choose' ? (
        <ChoosePanel
          lang={lang}
          amount={<Money amount={props.link.amount} currency={props.link.currency} lang={lang} />}
          panel={props.panel}
        />
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
