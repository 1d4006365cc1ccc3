import { createHmac } from 'node:crypto';
import { waitFor } from '@payrail/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { type BrowserSystem, byTestId } from './harness';

// Signing in to the console in Chromium as a person does (issue 28): the invitation mailed to the
// development mailbox, a password, the second factor (set up with an authenticator's codes, or skipped),
// then the sign-in page. No stand-in: the gateway's own sign-in, sessions and CSRF.

export const PASSWORD = 'violet tractor umbrella 42';
export const SESSION_COOKIE = 'payrail_console_session';

/** RFC 6238 as an authenticator app computes it (our own few lines, apart from the gateway's). */
export function authenticatorCode(secret: string, at = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of secret) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => Number.parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = (mac[19] as number) & 15;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** Waits for the authenticator's next 30-second step after `usedAt` (a code is accepted once). */
export async function nextTotpStep(usedAt: number): Promise<void> {
  const next = (Math.floor(usedAt / 30_000) + 1) * 30_000;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now()) + 200));
}

/** The console link of the newest mail to `email` in the development mailbox. */
export async function mailedLink(env: BrowserSystem, email: string): Promise<string> {
  return waitFor(async () => {
    const response = await fetch(`${env.gatewayUrl}/dev/mailbox`);
    if (response.status !== 200) return undefined;
    const mails = (await response.json()) as Array<{ to: string; text: string }>;
    const mail = mails.find((candidate) => candidate.to === email);
    return mail ? /https?:\/\/\S+\/console\/\S+/.exec(mail.text)?.[0] : undefined;
  });
}

/** On the invitation's page: the password, twice. */
export async function choosePassword(page: Page, invitation: string, password = PASSWORD): Promise<void> {
  await page.goto(invitation);
  await byTestId(page, 'invite-password').fill(password);
  await page.locator('#confirmation').fill(password);
  await byTestId(page, 'invite-submit').click();
  await byTestId(page, 'totp-secret').waitFor();
}

/** The sign-in page: e-mail and password, then the TOTP code where the account has a second factor. */
export async function signIn(
  page: Page,
  gatewayUrl: string,
  email: string,
  options: { totpSecret?: string; next?: string; password?: string } = {},
): Promise<void> {
  const next = options.next ? `?next=${encodeURIComponent(options.next)}` : '';
  await page.goto(`${gatewayUrl}/console/login${next}`);
  await byTestId(page, 'login-email').fill(email);
  await byTestId(page, 'login-password').fill(options.password ?? PASSWORD);
  await byTestId(page, 'login-submit').click();
  if (options.totpSecret) {
    await byTestId(page, 'login-totp').fill(authenticatorCode(options.totpSecret));
    await byTestId(page, 'login-submit').click();
  }
  await page.waitForURL(`${gatewayUrl}${options.next ?? '/console'}`);
}

/**
 * A person invited to `email` (the mail already sent) accepts the invitation without a second factor and
 * signs in: the browser context is theirs, signed in.
 */
export async function acceptAndSignIn(
  env: BrowserSystem,
  email: string,
  options: { viewport: { width: number; height: number }; next?: string },
): Promise<BrowserContext> {
  const context = await env.browser.newContext({ viewport: options.viewport, locale: 'es-PY' });
  const page = await context.newPage();
  await choosePassword(page, await mailedLink(env, email));
  await page.locator('form[action="/console/enrol/skip"] button').click();
  await page.waitForURL(/\/console\/login/);
  await signIn(page, env.gatewayUrl, email, { next: options.next });
  const session = (await context.cookies(`${env.gatewayUrl}/console/`)).find(
    (cookie) => cookie.name === SESSION_COOKIE,
  );
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  await page.close();
  return context;
}

/** The `Cookie` header of a signed-in browser context, for a request made outside the browser. */
export async function cookieHeaderOf(context: BrowserContext, gatewayUrl: string): Promise<string> {
  const cookies = await context.cookies(`${gatewayUrl}/console/`);
  return cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
}
