import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aConsoleUser,
  codeAt,
  ConsoleBrowser,
  type ConsoleSystem,
  GOOD_PASSWORD,
  linkIn,
  startConsoleSystem,
} from './support';

// The console's sign-in as a browser meets it (issue 28's security tests): invitation, password rules,
// second factor, the new session id at login, CSRF, the lockout, idle expiry, signing out everywhere.

let system: ConsoleSystem;
let merchantId: string;
beforeAll(async () => {
  system = await startConsoleSystem();
  merchantId = (await system.merchant()).id;
});
afterAll(async () => system?.stop());

const secretOn = (page: string) => /data-testid="totp-secret">([A-Z2-7]+)</.exec(page)?.[1] ?? '';

describe('invitation → password → second factor → sign-in', () => {
  it('the invited owner chooses a password, sets up TOTP, gets recovery codes, and signs in with a code', async () => {
    const invited = await system.admin('POST', `/admin/merchants/${merchantId}/users`, {
      email: 'Marta@Gym.example.com',
      name: 'Marta Ayala',
    });
    expect(invited.status).toBe(201);
    expect(invited.json()).toMatchObject({
      email: 'marta@gym.example.com',
      role: 'owner',
      status: 'invited',
    });
    expect(invited.json().invitationExpiresAt).toBe('2026-11-26T12:00:00.000Z');

    const browser = new ConsoleBrowser(system);
    const [mail] = await system.mailTo('marta@gym.example.com');
    const invitation = linkIn(mail);
    const page = await browser.get(invitation);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="invite-password"');

    // Too short, too common, mismatched: refused, nothing used up.
    for (const [password, confirmation, says] of [
      ['short one', 'short one', 'al menos 12 caracteres'],
      ['Qwerty123456', 'Qwerty123456', 'de las más comunes'],
      ['a fine long phrase', 'another long phrase', 'no coinciden'],
    ] as const) {
      const refused = await browser.post(invitation, { password, confirmation });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain(says);
    }

    const accepted = await browser.post(invitation, { password: GOOD_PASSWORD, confirmation: GOOD_PASSWORD });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/console/enrol');
    // The link worked once.
    expect((await new ConsoleBrowser(system).get(invitation)).status).toBe(410);

    const enrol = await browser.get('/console/enrol');
    expect(enrol.status).toBe(200);
    expect(enrol.text).toContain('<svg');
    const secret = secretOn(enrol.text);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect((await browser.post('/console/enrol', { code: '000000' })).status).toBe(400);
    const codes = await browser.post('/console/enrol', { code: codeAt(secret, system.clock.now()) });
    expect(codes.status).toBe(200);
    const recovery = [...codes.text.matchAll(/<li>([a-z0-9]{5}-[a-z0-9]{5})<\/li>/g)].map(
      (match) => match[1],
    );
    expect(recovery).toHaveLength(10);

    // Signing in: the password, then a code of the next time step (the enrolment's was used).
    const signIn = await browser.signIn('marta@gym.example.com');
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toMatch(/^\/console\/login\/second-factor/);
    const partial = browser.session;
    // Half signed in, a page sends the browser back to the code.
    expect((await browser.get('/console')).headers.get('location')).toBe('/console/login/second-factor');
    await browser.get('/console/login/second-factor');
    const sameStep = await browser.post('/console/login/second-factor', {
      code: codeAt(secret, system.clock.now()),
      next: '',
    });
    expect(sameStep.status).toBe(401);
    system.clock.advance(30_000);
    const done = await browser.post('/console/login/second-factor', {
      code: codeAt(secret, system.clock.now()),
      next: '',
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/console');
    expect(browser.session).toBeDefined();
    expect(browser.session).not.toBe(partial);

    // A TOTP code used once is refused again, in another sign-in.
    const other = new ConsoleBrowser(system);
    await other.signIn('marta@gym.example.com');
    await other.get('/console/login/second-factor');
    expect(
      (
        await other.post('/console/login/second-factor', {
          code: codeAt(secret, system.clock.now()),
          next: '',
        })
      ).status,
    ).toBe(401);
    // A recovery code works once.
    expect(
      (
        await other.post('/console/login/second-factor', {
          code: (recovery[0] as string).toUpperCase(),
          next: '',
        })
      ).status,
    ).toBe(303);
    const third = new ConsoleBrowser(system);
    await third.signIn('marta@gym.example.com');
    await third.get('/console/login/second-factor');
    expect(
      (await third.post('/console/login/second-factor', { code: recovery[0] as string, next: '' })).status,
    ).toBe(401);
  });
});

describe('sessions', () => {
  it('the session id changes at login: a cookie planted before is not the one after, and is worthless', async () => {
    const first = await aConsoleUser(system, merchantId, 'ops@gym.example.com', 'operations');
    const planted = first.session as string;
    const browser = new ConsoleBrowser(system);
    await browser.get('/console/login');
    browser.cookies.set('payrail_console_session', planted);
    const signedIn = await browser.post('/console/login', {
      email: 'ops@gym.example.com',
      password: GOOD_PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    expect(browser.session).toBeDefined();
    expect(browser.session).not.toBe(planted);
    // The session the browser came with was ended at sign-in.
    expect((await first.get('/console/account/password')).status).toBe(303);
    expect((await browser.get('/console/account/password')).status).toBe(200);
  });

  it('cookies are HttpOnly, SameSite=Strict, for /console', async () => {
    const browser = new ConsoleBrowser(system);
    await aConsoleUser(system, merchantId, 'flags@gym.example.com', 'viewer');
    await browser.get('/console/login');
    const answer = await browser.post('/console/login', {
      email: 'flags@gym.example.com',
      password: GOOD_PASSWORD,
    });
    const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('payrail_console_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/console/);
  });

  it('ends after 30 minutes idle', async () => {
    const browser = await aConsoleUser(system, merchantId, 'idle@gym.example.com', 'viewer');
    system.clock.advance(29 * 60_000);
    expect((await browser.get('/console/account/password')).status).toBe(200);
    system.clock.advance(29 * 60_000);
    expect((await browser.get('/console/account/password')).status).toBe(200);
    system.clock.advance(30 * 60_000);
    const expired = await browser.get('/console/account/password');
    expect(expired.status).toBe(303);
    expect(expired.headers.get('location')).toBe('/console/login?next=%2Fconsole%2Faccount%2Fpassword');
  });

  it('the hourly purge deletes idle sessions, and only those', async () => {
    const { purgeEndedSessions } = await import('../../src/application/access/sign-in');
    const { postgresConsoleSessionStore } = await import('../../src/adapters/postgres/console-session-store');
    const sessions = postgresConsoleSessionStore(system.gateway.database.db);
    const idle = await aConsoleUser(system, merchantId, 'purged@gym.example.com', 'viewer');
    system.clock.advance(31 * 60_000);
    const fresh = await aConsoleUser(system, merchantId, 'kept@gym.example.com', 'viewer');
    expect(await purgeEndedSessions({ sessions, clock: system.clock })).toBeGreaterThanOrEqual(1);
    expect((await fresh.get('/console/account/password')).status).toBe(200);
    expect((await idle.get('/console/account/password')).status).toBe(303);
  });

  it('a password change signs the user out everywhere, this browser getting a new session', async () => {
    const here = await aConsoleUser(system, merchantId, 'change@gym.example.com', 'developer');
    const elsewhere = new ConsoleBrowser(system);
    await elsewhere.signIn('change@gym.example.com');
    const before = here.session;
    await here.get('/console/account/password');
    const changed = await here.post('/console/account/password', {
      current: GOOD_PASSWORD,
      password: 'orange kettle marathon 7',
      confirmation: 'orange kettle marathon 7',
    });
    expect(changed.status).toBe(200);
    expect(here.session).not.toBe(before);
    expect((await here.get('/console/account/password')).status).toBe(200);
    expect((await elsewhere.get('/console/account/password')).status).toBe(303);
    expect(
      (await new ConsoleBrowser(system).signIn('change@gym.example.com', 'orange kettle marathon 7')).status,
    ).toBe(303);
  });

  it('logout ends the session', async () => {
    const browser = await aConsoleUser(system, merchantId, 'bye@gym.example.com', 'viewer');
    const session = browser.session as string;
    await browser.get('/console/account/password');
    expect((await browser.post('/console/logout', {})).headers.get('location')).toBe('/console/login');
    const replayed = new ConsoleBrowser(system);
    replayed.cookies.set('payrail_console_session', session);
    expect((await replayed.get('/console/account/password')).status).toBe(303);
  });
});

describe('CSRF', () => {
  it('a form posted without its token is refused, signed in or not, and does nothing', async () => {
    const browser = await aConsoleUser(system, merchantId, 'csrf@gym.example.com', 'owner');
    await browser.get('/console/account/password');
    const forged = await browser.post(
      '/console/account/password',
      { current: GOOD_PASSWORD, password: 'forged password here', confirmation: 'forged password here' },
      { csrf: false },
    );
    expect(forged.status).toBe(403);
    // A token of another browser is no better.
    const other = new ConsoleBrowser(system);
    await other.get('/console/login');
    browser.csrf = other.csrf;
    expect(
      (
        await browser.post('/console/account/password', {
          current: GOOD_PASSWORD,
          password: 'forged password here',
          confirmation: 'forged password here',
        })
      ).status,
    ).toBe(403);
    expect((await new ConsoleBrowser(system).signIn('csrf@gym.example.com')).status).toBe(303);
    const anonymous = new ConsoleBrowser(system);
    await anonymous.get('/console/login');
    expect(
      (
        await anonymous.post(
          '/console/login',
          { email: 'csrf@gym.example.com', password: GOOD_PASSWORD },
          { csrf: false },
        )
      ).status,
    ).toBe(403);
  });
});

describe('lockout', () => {
  it('5 failed logins lock the account for 15 minutes, the right password included', async () => {
    await aConsoleUser(system, merchantId, 'locked@gym.example.com', 'viewer');
    const browser = new ConsoleBrowser(system);
    await browser.get('/console/login');
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const wrong = await browser.post('/console/login', {
        email: 'locked@gym.example.com',
        password: `wrong ${attempt}`,
      });
      expect(wrong.status).toBe(401);
    }
    const fifth = await browser.post('/console/login', {
      email: 'locked@gym.example.com',
      password: 'wrong 5',
    });
    expect(fifth.status).toBe(429);
    expect(fifth.headers.get('retry-after')).toBe('900');
    const right = await browser.post('/console/login', {
      email: 'locked@gym.example.com',
      password: GOOD_PASSWORD,
    });
    expect(right.status).toBe(429);
    expect(browser.session).toBeUndefined();
    system.clock.advance(15 * 60_000);
    expect(
      (await browser.post('/console/login', { email: 'locked@gym.example.com', password: GOOD_PASSWORD }))
        .status,
    ).toBe(303);
  });

  it('failures made at the same moment are each counted: 5 at once lock the account', async () => {
    await aConsoleUser(system, merchantId, 'burst@gym.example.com', 'viewer');
    const browsers = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => {
        const browser = new ConsoleBrowser(system);
        await browser.get('/console/login');
        return browser;
      }),
    );
    await Promise.all(
      browsers.map((browser, index) =>
        browser.post('/console/login', { email: 'burst@gym.example.com', password: `wrong ${index}` }),
      ),
    );
    const right = await browsers[0]?.post('/console/login', {
      email: 'burst@gym.example.com',
      password: GOOD_PASSWORD,
    });
    expect(right?.status).toBe(429);
  });

  it('an unknown e-mail is refused as a wrong password is', async () => {
    const browser = new ConsoleBrowser(system);
    await browser.get('/console/login');
    const answer = await browser.post('/console/login', {
      email: 'nobody@gym.example.com',
      password: GOOD_PASSWORD,
    });
    expect(answer.status).toBe(401);
    expect(answer.text).toContain('Correo o contraseña incorrectos.');
  });
});

describe('password reset by e-mail', () => {
  it('mails a link that sets a new password once; the old one stops working', async () => {
    await aConsoleUser(system, merchantId, 'forgot@gym.example.com', 'viewer');
    const browser = new ConsoleBrowser(system);
    await browser.get('/console/password-reset');
    expect((await browser.post('/console/password-reset', { email: 'forgot@gym.example.com' })).status).toBe(
      200,
    );
    expect((await browser.post('/console/password-reset', { email: 'nobody@gym.example.com' })).status).toBe(
      200,
    );
    const link = linkIn((await system.mailTo('forgot@gym.example.com'))[0]);
    expect(link).toMatch(/^\/console\/password-reset\//);
    await browser.get(link);
    const reset = await browser.post(link, {
      password: 'new lovely passphrase',
      confirmation: 'new lovely passphrase',
    });
    expect(reset.status).toBe(200);
    expect((await browser.get(link)).status).toBe(410);
    expect((await new ConsoleBrowser(system).signIn('forgot@gym.example.com')).status).toBe(401);
    expect(
      (await new ConsoleBrowser(system).signIn('forgot@gym.example.com', 'new lovely passphrase')).status,
    ).toBe(303);
  });
});

describe('security headers', () => {
  it('every console page has a CSP without inline script or style, and is not framed or cached', async () => {
    const page = await new ConsoleBrowser(system).get('/console/login');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).not.toMatch(/<script|<style|style="/);
    const redirect = await new ConsoleBrowser(system).get('/console');
    expect(redirect.headers.get('content-security-policy')).toBe(csp);
  });
});

describe("the signed-in person's own account", () => {
  it('the language switch stores the language for the user, and goes back to the page', async () => {
    const browser = await aConsoleUser(system, merchantId, 'lang@gym.example.com', 'viewer');
    expect((await browser.get('/console/account/password')).text).toContain('Cambiar la contraseña');
    const switched = await browser.post('/console/language', {
      lang: 'en',
      back: '/console/account/password',
    });
    expect(switched.status).toBe(303);
    expect(switched.headers.get('location')).toBe('/console/account/password');
    expect((await browser.get('/console/account/password')).text).toContain('Change the password');
    // Stored for the user: another sign-in finds it; a `back` outside the console goes home instead.
    const again = new ConsoleBrowser(system);
    await again.signIn('lang@gym.example.com');
    expect((await again.get('/console/account/password')).text).toContain('Change the password');
    await again.get('/console/account/password');
    const outside = await again.post('/console/language', { lang: 'es', back: 'https://evil.example.com/' });
    expect(outside.headers.get('location')).toBe('/console');
  });

  it('sets up the second factor when signed in, and turns it off with the password', async () => {
    const browser = await aConsoleUser(system, merchantId, 'twofactor@gym.example.com', 'developer');
    const page = await browser.get('/console/account/two-factor');
    expect(page.status).toBe(200);
    const secret = secretOn(page.text);
    const codes = await browser.post('/console/account/two-factor', {
      code: codeAt(secret, system.clock.now()),
    });
    expect(codes.status).toBe(200);
    expect(codes.text).toContain('data-testid="recovery-codes"');
    expect((await browser.get('/console/account/two-factor')).text).toContain('Te quedan 10 códigos');
    expect(
      (await browser.post('/console/account/two-factor/disable', { current: 'not my password' })).status,
    ).toBe(400);
    expect(
      (await browser.post('/console/account/two-factor/disable', { current: GOOD_PASSWORD })).status,
    ).toBe(303);
    // Off: the password alone signs in again.
    const next = await new ConsoleBrowser(system).signIn('twofactor@gym.example.com');
    expect(next.headers.get('location')).toBe('/console');
  });

  it('an operator account signs in to /console/operator, never to a merchant page', async () => {
    expect(
      (await system.admin('POST', '/admin/operators', { email: 'luis@payrail.example.com' })).status,
    ).toBe(201);
    const browser = new ConsoleBrowser(system);
    const invitation = linkIn((await system.mailTo('luis@payrail.example.com'))[0]);
    await browser.get(invitation);
    await browser.post(invitation, { password: GOOD_PASSWORD, confirmation: GOOD_PASSWORD });
    await browser.get('/console/enrol');
    await browser.post('/console/enrol/skip', {});
    await browser.get('/console/login?next=%2Fconsole%2Foperator');
    const signedIn = await browser.post('/console/login', {
      email: 'luis@payrail.example.com',
      password: GOOD_PASSWORD,
      next: '/console/operator',
    });
    expect(signedIn.headers.get('location')).toBe('/console/operator');
    const merchantPage = await browser.get('/console/links');
    expect(merchantPage.status).toBe(303);
    expect(merchantPage.headers.get('location')).toBe('/console/operator');
    expect((await browser.get('/console/account/password')).status).toBe(200);
  });
});
