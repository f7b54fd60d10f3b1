import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { Mailbox } from '../e2e/support/mailbox.js';
import { freePort } from '../e2e/support/stack.js';
import { launchChromium, recordingPage } from './support/chromium.js';

/**
 * A person logs in with a browser: Debian's Chromium driven by playwright-core, on the
 * standalone service served as http://localhost (Chromium keeps Secure __Host- cookies there: a
 * potentially trustworthy origin). The login page, the code from the outbox, the console,
 * /auth/me as that person, logout; and the magic link's confirmation page.
 */

const EMAIL = 'admin@browser.test';

describe('console login in a browser', () => {
  let service: { close(): Promise<void> };
  let dataDir: string;
  let base: string;
  let mailbox: Mailbox;
  let browser: Browser;

  beforeAll(async () => {
    const { startStandalone } = await import('../../apps/standalone/src/standalone.js');
    dataDir = await mkdtemp(join(tmpdir(), 'fds-browser-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    service = await startStandalone(
      { DATA_DIR: dataDir, PORT: String(port), PUBLIC_URL: base, OPERATOR_DOMAIN: 'operator.browser.test', OPERATOR_ADMIN_EMAIL: EMAIL, LOG_LEVEL: 'warn' },
      { port },
    );
    mailbox = new Mailbox(dataDir);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const newPage = () => recordingPage(browser);

  it('logs in through /login with the mailed code and reaches /auth/me as that person', async () => {
    const { page, problems } = await newPage();
    await page.goto(`${base}/login`);
    await page.fill('#email', EMAIL);
    const since = Date.now();
    await page.click('#send');
    await page.waitForSelector('#code-step:not([hidden])');
    expect(await page.textContent('#code-for')).toBe(EMAIL);
    const code = await mailbox.waitForCode(EMAIL, { since });
    await page.fill('#code', code);
    await page.click('#verify');
    await page.waitForURL(`${base}/console`);
    await page.waitForSelector('#me-email');
    expect(await page.textContent('#me-email')).toBe(EMAIL);
    expect(await page.textContent('#me-customer')).toBe('operator.browser.test');
    expect(await page.textContent('#me-role')).toBe('owner');

    const cookies = await page.context().cookies();
    expect(cookies.map((c) => c.name).sort()).toEqual(['__Host-svc_at', '__Host-svc_csrf', '__Host-svc_rt']);
    for (const cookie of cookies) expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });

    const me = await page.goto(`${base}/auth/me`);
    expect(me?.status()).toBe(200);
    expect(await me?.json()).toMatchObject({ email: EMAIL, customer: 'operator.browser.test', role: 'owner', admin: 'full' });

    await page.goto(`${base}/console`);
    await page.waitForSelector('#me-email');
    await page.click('#logout');
    await page.waitForURL(`${base}/login`);
    expect(await page.context().cookies()).toEqual([]);
    const after = await page.goto(`${base}/auth/me`);
    expect(after?.status()).toBe(401);
    expect(problems).toEqual([]);
  });

  it('logs in with the magic link: the confirmation page, then the console', async () => {
    const { page, problems } = await newPage();
    const since = Date.now();
    const login = await page.request.post(`${base}/auth/login`, { data: { email: EMAIL } });
    expect(login.status()).toBe(202);
    const mail = await mailbox.waitFor((m) => m.to.includes(EMAIL) && /login code/i.test(m.subject), { since });
    const link = /https?:\/\/\S+\/auth\/magic\?\S+/.exec(mail.text)![0];
    await page.goto(link);
    expect(await page.textContent('h1')).toContain('Log in');
    await page.click('#confirm');
    await page.waitForURL(`${base}/console`);
    await page.waitForSelector('#me-email');
    expect(await page.textContent('#me-email')).toBe(EMAIL);
    // The link is used up: opening it again shows the failure page.
    const again = await page.goto(link);
    expect(again?.status()).toBe(400);
    expect(problems).toEqual([]);
  });

  it('brings a deep link back after the login, and never leaves the console for another origin', async () => {
    const { page, problems } = await newPage();
    await page.goto(`${base}/console/devices?q=SN-1`);
    await page.waitForURL(`${base}/login?next=${encodeURIComponent('/console/devices?q=SN-1')}`);
    await page.fill('#email', EMAIL);
    let since = Date.now();
    await page.click('#send');
    await page.fill('#code', await mailbox.waitForCode(EMAIL, { since }));
    await page.click('#verify');
    await page.waitForURL(`${base}/console/devices?q=SN-1`);
    await page.getByRole('heading', { name: 'Devices', exact: true }).waitFor();

    const { page: other } = await newPage();
    await other.goto(`${base}/login?next=${encodeURIComponent('https://evil.example/console')}`);
    await other.fill('#email', EMAIL);
    since = Date.now();
    await other.click('#send');
    await other.fill('#code', await mailbox.waitForCode(EMAIL, { since }));
    await other.click('#verify');
    await other.waitForURL(`${base}/console`);
    expect(problems).toEqual([]);
  });

  it("says the service's refusal as the console does: its detail, and a 429's Retry-After", async () => {
    const { page, problems } = await newPage();
    const isLogin = (url: URL) => url.pathname === '/auth/login';
    await page.route(isLogin, (route) =>
      route.fulfill({
        status: 429,
        headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '42' },
        body: JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429, detail: 'too many login attempts' }),
      }),
    );
    await page.goto(`${base}/login`);
    await page.fill('#email', EMAIL);
    await page.click('#send');
    await page.locator('#email-error').getByText('too many login attempts (try again in 42 s)').waitFor();
    expect(await page.isVisible('#email-form')).toBe(true);
    await page.unroute(isLogin);
    expect(problems).toEqual([]);
  });

  it('sends a browser without a session from /console to /login', async () => {
    const { page } = await newPage();
    await page.goto(`${base}/console`);
    await page.waitForURL(`${base}/login`);
    expect(await page.isVisible('#email-form')).toBe(true);
  });
});
