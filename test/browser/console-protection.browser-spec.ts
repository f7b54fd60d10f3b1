import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * Blocking your own address from the console (docs/console.md "Administrator pages"): the
 * service refuses it until confirmed, the page asks, and once blocked every page says so in
 * words, never as raw JSON. Its own service: the administrator ends up locked out.
 */
describe('console: a block of your own address', () => {
  let harness: ConsoleHarness;
  let admin: Person;

  beforeAll(async () => {
    harness = await ConsoleHarness.start();
    admin = await harness.login(ConsoleHarness.ADMIN);
  });
  afterAll(async () => harness?.close());

  it('asks first; cancelled, nothing is stored; confirmed, the console is locked out at once and the page says so', async () => {
    const { page } = admin;
    const opened = await page.goto(`${harness.base}/console/admin/ip-blocks`);
    // The browser talks to the service over loopback: its own address is the one it connected to.
    const own = (await opened!.serverAddr())!.ipAddress.replace(/^\[(.*)\]$/, '$1');
    const network = own.includes(':') ? `${own}/128` : `${own}/32`;
    await page.getByText('No address is blocked').waitFor();

    await page.locator('input[name=cidr]').fill(own);
    await page.locator('input[name=reason]').fill('testing the lock-out');
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Block your own address?' });
    await dialog.getByText(`${network} covers your own address ${own}`).waitFor();
    // The API's hint (which body field confirms) is not for a person: the button is.
    expect(await dialog.textContent()).not.toContain('confirm_own_address');
    await harness.check(page, 'admin-ip-blocks-own-address');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(((await admin.api.get('/admin/ip-blocks')) as { items: unknown[] }).items).toEqual([]);
    await page.getByText('No address is blocked').waitFor();

    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await dialog.getByRole('button', { name: 'Block anyway' }).click();
    await page.getByText(`${network} is blocked until`).waitFor();
    await page.getByText('your own address included').waitFor();
    // At once: the page's next request is refused, and the page shows the service's message.
    await page.getByRole('alert').getByText('address blocked').waitFor();

    // A page loaded from the blocked address is a page that explains, not problem+json.
    const reloaded = await page.reload();
    expect(reloaded!.status()).toBe(403);
    expect(reloaded!.headers()['content-type']).toMatch(/^text\/html\b/);
    await page.getByRole('heading', { level: 1, name: 'Your address is blocked' }).waitFor();
    await page.getByText('403 Forbidden: address blocked').waitFor();
    expect(await page.locator('body').textContent()).not.toContain('"status"');
    await harness.check(page, 'address-blocked');
    expect(harness.problems).toEqual([]);
  });
});
