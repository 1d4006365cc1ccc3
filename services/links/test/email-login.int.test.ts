import {
  aMerchant,
  type ServiceUnderTest,
  startService,
  TEST_INTERNAL_SECRET,
  testClock,
} from '@payrail/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDevMailbox, type DevMailbox } from '@payrail/mail';
import { emailCodeRows, postgresEmailLoginRepository } from '../src/adapters/postgres/email-login-repository';
import { customers } from '../src/adapters/postgres/schema';
import { checkEmailCode, type EmailLoginDeps, requestEmailCode } from '../src/application/email-login';
import {
  CODE_REQUEST_WINDOW_MS,
  CODE_REQUESTS_PER_EMAIL,
  CODE_REQUESTS_PER_REQUESTER,
  EMAIL_CODE_LIFETIME_MS,
} from '../src/domain/email-login';
import { linksService } from '../src/service';

const clock = testClock(new Date('2026-11-22T12:00:00Z'));
let svc: ServiceUnderTest;
let mailbox: DevMailbox;
let deps: EmailLoginDeps;

beforeAll(async () => {
  svc = await startService(linksService, { clock });
});
afterAll(async () => svc?.stop());
beforeEach(() => {
  // Each test moves the clock on by a day: earlier tests' requests are out of every limit's window.
  clock.advance(24 * 3_600_000);
  mailbox = createDevMailbox(clock);
  deps = {
    emailLogins: postgresEmailLoginRepository(svc.database.db),
    mailer: mailbox,
    clock,
    secret: TEST_INTERNAL_SECRET,
  };
});

const wording = {
  subject: (merchant: string) => `Your code for ${merchant}`,
  text: (code: string, merchant: string, minutes: number) =>
    `${code} is your code for ${merchant}, valid ${minutes} minutes.`,
};

let requester = 0;
/** A new requester address per call unless given: the per-address limit stays out of the way. */
function request(merchantId: string, email: string, requesterAddress = `10.0.0.${++requester % 250}`) {
  return requestEmailCode(deps, {
    merchantId,
    merchantName: 'Gym & Co',
    email,
    requesterAddress,
    wording,
  });
}

/** The code in the newest mail to that address. */
function codeMailedTo(email: string): string {
  const mail = mailbox.messages().find((message) => message.to === email);
  const code = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
  if (!code) throw new Error(`no code mailed to ${email}`);
  return code;
}

const otherThan = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('e-mail login codes', () => {
  it('mails 6 digits valid 10 minutes, and keeps only a keyed hash of them', async () => {
    const merchant = aMerchant();
    expect(await request(merchant.merchantId, 'Ana@Example.com')).toEqual({ sent: true });
    const [mail] = mailbox.messages();
    expect(mail).toMatchObject({ to: 'Ana@Example.com', subject: 'Your code for Gym & Co' });
    expect(mail?.sentAt).toBe(clock.now().toISOString());
    const code = codeMailedTo('Ana@Example.com');
    expect(mail?.text).toContain('valid 10 minutes');

    const rows = await emailCodeRows(svc.database.db, merchant.merchantId, 'ana@example.com');
    expect(rows).toHaveLength(1);
    const row = rows[0];
    if (!row) throw new Error('no code row');
    expect(row.expiresAt.getTime() - clock.now().getTime()).toBe(EMAIL_CODE_LIFETIME_MS);
    expect(row?.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);
    // Not a plain SHA-256 either: trying the million codes without the secret finds nothing.
    const { createHash } = await import('node:crypto');
    expect(row?.codeHash).not.toBe(createHash('sha256').update(code).digest('hex'));
  });

  it('the right code logs in: the customer is found or created by e-mail at that merchant, whatever its case', async () => {
    const merchant = aMerchant();
    await request(merchant.merchantId, 'bruno@example.com');
    const first = await checkEmailCode(deps, {
      merchantId: merchant.merchantId,
      email: 'bruno@example.com',
      code: codeMailedTo('bruno@example.com'),
    });
    expect(first.ok).toBe(true);

    await request(merchant.merchantId, 'BRUNO@example.com');
    const second = await checkEmailCode(deps, {
      merchantId: merchant.merchantId,
      email: 'Bruno@Example.com',
      code: codeMailedTo('BRUNO@example.com'),
    });
    expect(second).toEqual(first);
    const rows = await svc.database.db
      .select()
      .from(customers)
      .where(eq(customers.merchantId, merchant.merchantId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ email: 'bruno@example.com', emailKey: 'bruno@example.com' });
  });

  it('a code works once', async () => {
    const merchant = aMerchant();
    await request(merchant.merchantId, 'once@example.com');
    const code = codeMailedTo('once@example.com');
    const login = { merchantId: merchant.merchantId, email: 'once@example.com', code };
    expect((await checkEmailCode(deps, login)).ok).toBe(true);
    expect(await checkEmailCode(deps, login)).toEqual({ ok: false, reason: 'no-live-code' });
  });

  it('expires 10 minutes after it was sent (by the clock)', async () => {
    const merchant = aMerchant();
    await request(merchant.merchantId, 'late@example.com');
    const login = {
      merchantId: merchant.merchantId,
      email: 'late@example.com',
      code: codeMailedTo('late@example.com'),
    };
    clock.advance(EMAIL_CODE_LIFETIME_MS);
    expect(await checkEmailCode(deps, login)).toEqual({ ok: false, reason: 'no-live-code' });
  });

  it('is still good just before its 10 minutes are over', async () => {
    const merchant = aMerchant();
    await request(merchant.merchantId, 'intime@example.com');
    const login = {
      merchantId: merchant.merchantId,
      email: 'intime@example.com',
      code: codeMailedTo('intime@example.com'),
    };
    clock.advance(EMAIL_CODE_LIFETIME_MS - 1000);
    expect((await checkEmailCode(deps, login)).ok).toBe(true);
  });

  it('dies after 5 wrong tries: the right code then opens nothing', async () => {
    const merchant = aMerchant();
    await request(merchant.merchantId, 'guess@example.com');
    const code = codeMailedTo('guess@example.com');
    const wrong = { merchantId: merchant.merchantId, email: 'guess@example.com', code: otherThan(code) };
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await checkEmailCode(deps, wrong));
    expect(
      answers.map((answer) => (answer.ok ? 'ok' : answer.reason === 'wrong-code' ? answer.triesLeft : -1)),
    ).toEqual([4, 3, 2, 1, 0]);
    expect(await checkEmailCode(deps, { ...wrong, code })).toEqual({ ok: false, reason: 'no-live-code' });
    const [row] = await emailCodeRows(svc.database.db, merchant.merchantId, 'guess@example.com');
    expect(row?.attempts).toBe(5);
  });

  it('counts a try that is not even 6 digits', async () => {
    const merchant = aMerchant();
    await request(merchant.merchantId, 'typo@example.com');
    const answer = await checkEmailCode(deps, {
      merchantId: merchant.merchantId,
      email: 'typo@example.com',
      code: '12a',
    });
    expect(answer).toEqual({ ok: false, reason: 'wrong-code', triesLeft: 4 });
  });

  it('a new code replaces the older one', async () => {
    const merchant = aMerchant();
    await request(merchant.merchantId, 'twice@example.com');
    const older = codeMailedTo('twice@example.com');
    await request(merchant.merchantId, 'twice@example.com');
    const newer = codeMailedTo('twice@example.com');
    const login = { merchantId: merchant.merchantId, email: 'twice@example.com' };
    if (older !== newer) {
      expect(await checkEmailCode(deps, { ...login, code: older })).toMatchObject({ ok: false });
    }
    expect((await checkEmailCode(deps, { ...login, code: newer })).ok).toBe(true);
  });

  it("another merchant's code logs in nobody here", async () => {
    const here = aMerchant();
    const there = aMerchant();
    await request(there.merchantId, 'both@example.com');
    const answer = await checkEmailCode(deps, {
      merchantId: here.merchantId,
      email: 'both@example.com',
      code: codeMailedTo('both@example.com'),
    });
    expect(answer).toEqual({ ok: false, reason: 'no-live-code' });
  });

  it('refuses an address that is not an e-mail, storing and mailing nothing', async () => {
    const merchant = aMerchant();
    expect(await request(merchant.merchantId, 'not an address')).toEqual({ refused: 'invalid-email' });
    expect(mailbox.messages()).toEqual([]);
  });
});

describe('code request limits', () => {
  it(`sends ${CODE_REQUESTS_PER_EMAIL} codes per hour to one e-mail, then says when to try again`, async () => {
    const merchant = aMerchant();
    const answers = [];
    for (let i = 0; i < CODE_REQUESTS_PER_EMAIL + 1; i++) {
      answers.push(await request(merchant.merchantId, 'busy@example.com'));
      clock.advance(60_000);
    }
    expect(answers.slice(0, CODE_REQUESTS_PER_EMAIL).every((answer) => 'sent' in answer)).toBe(true);
    // The first request was 5 minutes before the refused one at 6 per hour... its hour ends 55 minutes later.
    expect(answers.at(-1)).toEqual({ refused: 'too-many-requests', retryAfterSeconds: 55 * 60 });
    expect(mailbox.messages()).toHaveLength(CODE_REQUESTS_PER_EMAIL);
    expect(await emailCodeRows(svc.database.db, merchant.merchantId, 'busy@example.com')).toHaveLength(
      CODE_REQUESTS_PER_EMAIL,
    );

    clock.advance(CODE_REQUEST_WINDOW_MS - 5 * 60_000);
    expect(await request(merchant.merchantId, 'busy@example.com')).toEqual({ sent: true });
  });

  it('counts the e-mail per merchant: another merchant may still send to it', async () => {
    const merchant = aMerchant();
    for (let i = 0; i < CODE_REQUESTS_PER_EMAIL; i++)
      await request(merchant.merchantId, 'shared@example.com');
    expect(await request(merchant.merchantId, 'shared@example.com')).toMatchObject({
      refused: 'too-many-requests',
    });
    expect(await request(aMerchant().merchantId, 'shared@example.com')).toEqual({ sent: true });
  });

  it(`sends ${CODE_REQUESTS_PER_REQUESTER} codes per hour asked from one address, whatever the e-mail`, async () => {
    const merchant = aMerchant();
    const address = '203.0.113.7';
    for (let i = 0; i < CODE_REQUESTS_PER_REQUESTER; i++) {
      expect(await request(merchant.merchantId, `person${i}@example.com`, address)).toEqual({ sent: true });
    }
    expect(await request(aMerchant().merchantId, 'one-more@example.com', address)).toMatchObject({
      refused: 'too-many-requests',
    });
    expect(await request(merchant.merchantId, 'one-more@example.com', '203.0.113.8')).toEqual({ sent: true });
  });

  it('holds under concurrency: 12 requests at once for one e-mail send exactly the limit', async () => {
    const merchant = aMerchant();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => request(merchant.merchantId, 'rush@example.com')),
    );
    expect(answers.filter((answer) => 'sent' in answer)).toHaveLength(CODE_REQUESTS_PER_EMAIL);
    expect(await emailCodeRows(svc.database.db, merchant.merchantId, 'rush@example.com')).toHaveLength(
      CODE_REQUESTS_PER_EMAIL,
    );
    // Of the codes sent, only the newest is live.
    const live = (await emailCodeRows(svc.database.db, merchant.merchantId, 'rush@example.com')).filter(
      (row) => row.closedAt === null,
    );
    expect(live).toHaveLength(1);
  });
});
