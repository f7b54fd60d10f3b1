import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserContext, Page } from 'playwright-core';
import { ConsoleHarness, type Person } from './support/console-harness.js';

const TABS = 4;
const ROUNDS = 3;
const ACCESS_COOKIE = '__Host-svc_at';

/**
 * Several console tabs of one browser (docs/console.md "Session and CSRF"): opened at once, each
 * renews the session on load; the renewals take turns across the tabs, so none presents a refresh
 * token another tab has already rotated. Reuse detection stays strict: a rotated token presented
 * again would end the session and raise a critical `session_token_reuse` event mailed to every
 * administrator, which is what this test looks for.
 */
describe('console in several tabs', () => {
  let harness: ConsoleHarness;

  beforeAll(async () => {
    harness = await ConsoleHarness.start();
    const admin = await harness.login(ConsoleHarness.ADMIN);
    await harness.customer(admin, 'tabs.browser.test', 'owner@tabs.browser.test');
    expect((await admin.api.send('POST', '/members?customer=tabs.browser.test', { email: 'editor@tabs.browser.test', role: 'editor' })).status).toBe(201);
    await admin.context.close();
  });
  afterAll(async () => harness?.close());

  /** Opens the console in TABS new tabs of the person's browser at once; every tab shows them logged in. */
  async function openTabs(person: Person): Promise<Page[]> {
    const pages = await Promise.all(Array.from({ length: TABS }, () => person.context.newPage()));
    for (const page of pages) harness.watch(page);
    await Promise.all(pages.map((page) => page.goto(`${harness.base}/console`)));
    // Logged in, sent to the login page, or an error shown: whichever comes first.
    await Promise.all(pages.map((page) => page.locator('#me-email, #email-form, [role="alert"]').first().waitFor()));
    const shown = await Promise.all(
      pages.map(async (page) => ({
        url: new URL(page.url()).pathname,
        email: await page
          .locator('#me-email')
          .textContent({ timeout: 1000 })
          .catch(() => null),
      })),
    );
    expect(shown).toEqual(pages.map(() => ({ url: '/console', email: person.email })));
    return pages;
  }

  async function closeTabs(pages: Page[]): Promise<void> {
    await Promise.all(pages.map((page) => page.close()));
  }

  /** The session still works: a request from a tab after all the renewals. */
  async function stillLoggedIn(context: BrowserContext, email: string): Promise<void> {
    const me = await context.request.get(`${harness.base}/auth/me`, { headers: { Accept: 'application/json' } });
    expect(me.status()).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(email);
  }

  async function noReuseAlarm(since: number): Promise<void> {
    const alarms = (await harness.mailbox.all()).filter((m) => m.writtenAt >= since && /session_token_reuse|token reuse/i.test(`${m.subject}\n${m.text}`));
    expect(alarms.map((m) => m.subject)).toEqual([]);
    const admin = await harness.login(ConsoleHarness.ADMIN);
    const events = (await admin.api.get('/admin/security/events?kind=session_token_reuse')) as { items: unknown[] };
    expect(events.items).toEqual([]);
    await admin.context.close();
  }

  it.each([
    ['an administrator', ConsoleHarness.ADMIN],
    ['an editor', 'editor@tabs.browser.test'],
  ])('opens four tabs at once as %s, again and again, without ending the session', async (_who, email) => {
    const since = Date.now();
    const person = await harness.login(email);
    await person.page.close();
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round without the access cookie: every tab's first request renews as well.
      if (round % 2 === 1) await person.context.clearCookies({ name: ACCESS_COOKIE });
      await closeTabs(await openTabs(person));
      await stillLoggedIn(person.context, email);
    }
    await person.context.close();
    await noReuseAlarm(since);
    expect(harness.problems).toEqual([]);
  });
});
