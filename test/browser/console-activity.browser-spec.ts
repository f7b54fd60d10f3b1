import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * The audit pages (docs/console.md "Activity" and "Administrator pages"): a customer's owner
 * reads its Activity (the service's administrators shown as "service administrator", filtered,
 * paged); an editor has no such page; the administrators' audit log fits a 1280 px screen and
 * shows people by email.
 */
describe('console: Activity and the audit log', () => {
  const DOMAIN = 'activity.browser.test';
  const OWNER = `owner@${DOMAIN}`;
  const EDITOR = `editor@${DOMAIN}`;
  /** More than a page of 50: the pager has a second page. */
  const DEVICES = 52;
  let harness: ConsoleHarness;
  let admin: Person;
  let owner: Person;

  beforeAll(async () => {
    harness = await ConsoleHarness.start();
    admin = await harness.login(ConsoleHarness.ADMIN);
    await harness.customer(admin, DOMAIN, OWNER);
    owner = await harness.login(OWNER);
    for (let i = 0; i < DEVICES; i++) expect((await owner.api.send('POST', '/devices', { hwid: `SN-${i}` })).status).toBe(201);
    expect((await admin.api.send('POST', `/devices?customer=${DOMAIN}`, { hwid: 'SN-BY-ADMIN' })).status).toBe(201);
    expect((await owner.api.send('POST', '/members', { email: EDITOR, role: 'editor' })).status).toBe(201);
    // Entries reach the log within moments of the changes.
    await harness.until(async () => {
      const { items } = (await owner.api.get('/audit?limit=1000')) as { items: Array<{ target_id: string }> };
      return (
        items.some((e) => e.target_id === 'SN-BY-ADMIN') && items.some((e) => e.target_id === `SN-${DEVICES - 1}`) && items.some((e) => e.target_id === EDITOR)
      );
    });
  });
  afterAll(async () => harness?.close());

  const rows = (page: Page) => page.locator('#audit tbody tr');

  it("shows the owner their customer's changes, administrators as service administrator, filtered and paged", async () => {
    const { page } = owner;
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(`${harness.base}/console/activity`);
    await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
    await rows(page).first().waitFor();
    await harness.loaded(page);
    expect(await rows(page).count()).toBe(50);
    await harness.check(page, 'activity');
    // People by email; the administrator's identity nowhere on the page.
    await page.locator('#audit').getByText(OWNER).first().waitFor();
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toContain(ConsoleHarness.ADMIN);
    expect(text).not.toContain('admin:');
    // The second page holds the rest, the customer's opening among them.
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('from 51').waitFor();
    await page.locator('#audit').getByRole('link', { name: 'customer.create' }).waitFor();
    const opening = page.getByRole('row', { name: /customer\.create/ });
    await opening.getByRole('link', { name: 'service administrator' }).waitFor();
    // Clicking a person lists only their changes.
    await opening.getByRole('link', { name: 'service administrator' }).click();
    await page.waitForURL(/actor=service\+administrator/);
    await harness.until(async () => (await rows(page).count()) === 3);
    const actions = await page.locator('#audit a.audit-action').allTextContents();
    expect(actions.sort()).toEqual(['customer.create', 'device.create', 'member.invite']);
    // The filter form: checked as the API checks it, then applied.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('From').fill('yesterday');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('from must be a date (YYYY-MM-DD) or an RFC 3339 timestamp').waitFor();
    await page.getByLabel('From').fill('');
    await page.getByLabel('Target', { exact: true }).fill('SN-7');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await harness.until(async () => (await rows(page).count()) === 1);
    await page.locator('#audit').getByRole('link', { name: 'device.create' }).waitFor();
    expect(harness.problems).toEqual([]);
  });

  it('is not offered to an editor', async () => {
    const editor = await harness.login(EDITOR);
    const nav = editor.page.getByRole('navigation', { name: 'Console pages' });
    await nav.getByRole('link', { name: 'Devices' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Activity' }).count()).toBe(0);
    await editor.context.close();
  });

  it("lays the administrators' audit log out within 1280 px, people by email", async () => {
    const { page } = admin;
    await page.goto(`${harness.base}/console/admin/audit?domain=${DOMAIN}&limit=100`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await rows(page).first().waitFor();
    await harness.loaded(page);
    // Both the owner and the administrator by email; the administrator marked.
    await page.locator('#audit').getByText(OWNER).first().waitFor();
    const byAdmin = page.getByRole('row', { name: /SN-BY-ADMIN/ });
    await byAdmin.getByText(ConsoleHarness.ADMIN).waitFor();
    await byAdmin.getByText('administrator', { exact: true }).waitFor();
    // Nothing wider than the screen: the table fits its place, before and after folded.
    const overflow = await page.evaluate<{ table: number; place: number; page: number; screen: number }>(`(() => {
      const wrap = document.querySelector('.audit-table');
      return { table: wrap.scrollWidth, place: wrap.clientWidth, page: document.documentElement.scrollWidth, screen: window.innerWidth };
    })()`);
    expect(overflow.table).toBeLessThanOrEqual(overflow.place);
    expect(overflow.page).toBeLessThanOrEqual(overflow.screen);
    await harness.check(page, 'admin-audit-1280');
    // A change's whole before and after unfold in place, wrapped.
    const change = page.getByRole('row', { name: /member\.invite/ }).first();
    await change.getByText('Before and after').click();
    await change.getByText('After', { exact: true }).waitFor();
    const unfolded = await page.evaluate<number>(`document.documentElement.scrollWidth`);
    expect(unfolded).toBeLessThanOrEqual(overflow.screen);
    expect(harness.problems).toEqual([]);
  });
});
