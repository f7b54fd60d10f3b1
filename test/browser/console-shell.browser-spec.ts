import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * The console's shell: served as an app with its hashed assets cached for a year, every
 * /console path a deep link, a strict Content-Security-Policy, the layout and the session.
 */
describe('console shell', () => {
  let harness: ConsoleHarness;
  let admin: Person;

  beforeAll(async () => {
    harness = await ConsoleHarness.start();
    admin = await harness.login(ConsoleHarness.ADMIN);
  });
  afterAll(async () => harness?.close());

  it('serves index.html for every /console path without caching, and hashed assets for a year', async () => {
    const index = await admin.context.request.get(`${harness.base}/console/firmware/00000000-0000-4000-8000-000000000000`);
    expect(index.status()).toBe(200);
    expect(index.headers()['cache-control']).toBe('no-cache');
    expect(index.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(index.headers()['content-security-policy']).not.toContain('unsafe-inline');
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1];
    const script = await admin.context.request.get(`${harness.base}${asset}`);
    expect(script.status()).toBe(200);
    expect(script.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers()['content-type']).toContain('text/javascript');
    const missing = await admin.context.request.get(`${harness.base}/console/assets/missing-AAAAAAAA.js`, { headers: { Accept: 'application/json' } });
    expect(missing.status()).toBe(404);
  });

  it('shows who is logged in, the pages of the role, and links to /docs and /health', async () => {
    const { page } = admin;
    await page.goto(`${harness.base}/console`);
    await expect(page.locator('#me-email').textContent()).resolves.toBe(ConsoleHarness.ADMIN);
    expect(await page.locator('#me-role').textContent()).toBe('owner');
    const nav = page.getByRole('navigation', { name: 'Console pages' });
    expect(await nav.getByRole('link', { name: 'API documentation' }).getAttribute('href')).toBe('/docs');
    expect(await nav.getByRole('link', { name: 'Service health' }).getAttribute('href')).toBe('/health');
    await harness.check(page, 'overview');
    expect(harness.problems).toEqual([]);
  });

  it('lets an administrator act on another customer (customer=) and a member of two customers switch', async () => {
    const { page } = admin;
    await harness.customer(admin, 'acme.browser.test', 'owner@acme.browser.test');
    expect((await admin.api.send('POST', '/devices?customer=acme.browser.test', { hwid: 'ACME-1' })).status).toBe(201);
    await page.goto(`${harness.base}/console/devices`);
    await page.getByText('No devices yet').waitFor();
    await page.getByLabel('Acting on').selectOption('acme.browser.test');
    await page.getByRole('link', { name: 'ACME-1' }).waitFor();
    // The choice survives a reload (kept for the browser tab).
    await page.reload();
    await page.getByRole('link', { name: 'ACME-1' }).waitFor();
    await harness.check(page, 'admin-acting-on');
    await page.getByLabel('Acting on').selectOption(ConsoleHarness.OPERATOR);
    await page.getByText('No devices yet').waitFor();

    // The administrator becomes a viewer of acme too: the switch moves the session there.
    const owner = await harness.login('owner@acme.browser.test');
    expect((await owner.api.send('POST', '/members', { email: ConsoleHarness.ADMIN, role: 'viewer' })).status).toBe(201);
    await owner.context.close();
    const member = await harness.login(ConsoleHarness.ADMIN);
    await member.page.getByLabel('Your customer').selectOption('acme.browser.test');
    await member.page.waitForURL(`${harness.base}/console`);
    await member.page.locator('#me-customer', { hasText: 'acme.browser.test' }).waitFor();
    expect(await member.page.locator('#me-role').textContent()).toBe('viewer');
    expect(harness.problems).toEqual([]);
  });
});
