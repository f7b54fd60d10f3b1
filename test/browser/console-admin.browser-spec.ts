import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateBackupKeyPair } from '../../libs/infra/src/backup/backup-archive.js';
import type { Page } from 'playwright-core';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * The administrator's pages (docs/console.md "Administrator pages"): a customer opened,
 * suspended and reactivated; an address blocked and unblocked; maintenance on and off; a
 * backup run and verified; every page screenshotted and checked by axe.
 */
describe('console: administrator pages', () => {
  const DOMAIN = 'acme.admin.browser.test';
  let harness: ConsoleHarness;
  let admin: Person;
  let secretKey: string;

  beforeAll(async () => {
    const keys = await generateBackupKeyPair();
    secretKey = keys.secretKey;
    harness = await ConsoleHarness.start({ BACKUP_PUBLIC_KEY: keys.publicKey });
    admin = await harness.login(ConsoleHarness.ADMIN);
  });
  afterAll(async () => harness?.close());

  const nav = () => admin.page.getByRole('navigation', { name: 'Console pages' });

  it('opens a customer with its first owner, suspends it and reactivates it', async () => {
    const { page } = admin;
    await nav().getByRole('link', { name: 'Customers' }).click();
    await page.waitForURL(`${harness.base}/console/admin/customers`);
    await page.locator('#customers').getByRole('link', { name: ConsoleHarness.OPERATOR }).waitFor();
    // Checked as the API checks it, with the API's message.
    await page.locator('input[name=domain]').fill('Not A Domain');
    await page.getByRole('button', { name: 'Open customer' }).click();
    await page.getByText('domain must be a lower-case DNS name').waitFor();
    await page.locator('input[name=domain]').fill(DOMAIN);
    await page.locator('input[name=name]').fill('Acme Devices');
    await page.locator('input[name=owner_email]').fill(`owner@${DOMAIN}`);
    await page.locator('textarea[name=cors_origins]').fill('https://fleet.acme.example');
    await page.getByRole('button', { name: 'Open customer' }).click();
    await page.waitForURL(new RegExp(`/console/admin/customers/${DOMAIN.replaceAll('.', '\\.')}`));
    await page.getByText('The customer is open').waitFor();
    expect(await page.locator('#customer-status').textContent()).toBe('active');
    await page.getByRole('cell', { name: `owner@${DOMAIN}` }).waitFor();
    await page.getByText('https://fleet.acme.example').first().waitFor();
    // Two devices: what suspending stops serving, stated before anything is done; Cancel sends nothing.
    for (const hwid of ['SN-A1', 'SN-A2']) expect((await admin.api.send('POST', `/devices?customer=${DOMAIN}`, { hwid })).status).toBe(201);
    await page.reload();
    await page.locator('#customer-devices', { hasText: /^2$/ }).waitFor();
    const changes = watchWrites(page);
    await page.getByRole('button', { name: 'Suspend', exact: true }).click();
    const suspend = page.getByRole('dialog', { name: `Suspend ${DOMAIN}?` });
    await suspend
      .locator('#suspend-reach')
      .getByText(/^Suspending it stops serving 2 devices at once/)
      .waitFor();
    await harness.check(page, 'admin-customer-suspend-confirm');
    await suspend.getByRole('button', { name: 'Cancel' }).click();
    await suspend.waitFor({ state: 'detached' });
    expect(changes).toEqual([]);
    expect(((await admin.api.get(`/admin/customers/${DOMAIN}`)) as { customer: { status: string } }).customer.status).toBe('active');
    // Escape cancels too.
    await page.getByRole('button', { name: 'Suspend', exact: true }).click();
    await suspend.waitFor();
    await page.keyboard.press('Escape');
    await suspend.waitFor({ state: 'detached' });
    expect(changes).toEqual([]);
    await page.getByRole('button', { name: 'Suspend', exact: true }).click();
    await suspend.getByRole('button', { name: `Suspend ${DOMAIN}` }).click();
    await page.getByText('Suspended: its tokens stop working').waitFor();
    expect(changes).toEqual([`PATCH /admin/customers/${DOMAIN}`]);
    // The notice comes with the answer; the status with the customer loaded again just after.
    await page.locator('#customer-status', { hasText: /^suspended$/ }).waitFor();
    await harness.check(page, 'admin-customer-suspended');
    // The list says so too, and a deep link survives a reload.
    await page.goto(`${harness.base}/console/admin/customers`);
    await page
      .getByRole('row', { name: new RegExp(DOMAIN) })
      .getByText('suspended')
      .waitFor();
    await harness.check(page, 'admin-customers');
    await page.goto(`${harness.base}/console/admin/customers/${DOMAIN}`);
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.getByText('Active again').waitFor();
    await page.locator('#customer-status', { hasText: /^active$/ }).waitFor();
    await harness.check(page, 'admin-customer');
    // The delete button waits for the typed domain.
    expect(await page.getByRole('button', { name: `Delete ${DOMAIN}` }).isDisabled()).toBe(true);
    expect(harness.problems).toEqual([]);
  });

  it('deletes a customer only once the confirmation, stating how many devices stop being served, is accepted', async () => {
    const { page } = admin;
    const gone = 'gone.admin.browser.test';
    await harness.customer(admin, gone, `owner@${gone}`);
    expect((await admin.api.send('POST', `/devices?customer=${gone}`, { hwid: 'SN-G1' })).status).toBe(201);
    await page.goto(`${harness.base}/console/admin/customers/${gone}`);
    await page.locator('#customer-devices', { hasText: /^1$/ }).waitFor();
    const changes = watchWrites(page);
    await page.getByLabel(`Type ${gone} to confirm`).fill(gone);
    await page.getByRole('button', { name: `Delete ${gone}`, exact: true }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${gone}?` });
    await confirm
      .locator('#delete-reach')
      .getByText(/^Deleting it stops serving 1 device at once/)
      .waitFor();
    await harness.check(page, 'admin-customer-delete-confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(changes).toEqual([]);
    expect(((await admin.api.get(`/admin/customers/${gone}`)) as { customer: { status: string } }).customer.status).toBe('active');
    await page.getByRole('button', { name: `Delete ${gone}`, exact: true }).click();
    await confirm.getByRole('button', { name: `Delete ${gone} for good` }).click();
    await page.getByText(new RegExp(`^${gone.replaceAll('.', '\\.')} is deleted`)).waitFor();
    expect(changes).toEqual([`DELETE /admin/customers/${gone}`]);
    expect(harness.problems).toEqual([]);
  });

  it('acts on the customer named in the address: a link opened in a new tab keeps it, an unknown one is said', async () => {
    // A new tab has nothing of the first one but the address.
    const tab = await admin.context.newPage();
    harness.watch(tab);
    await tab.goto(`${harness.base}/console/devices?customer=${DOMAIN}`);
    await tab.getByRole('link', { name: 'SN-A1' }).waitFor();
    expect(await tab.locator('#acting-on').inputValue()).toBe(DOMAIN);
    // Every console link carries the customer, so opening one in yet another tab acts on it too.
    const deviceHref = await tab.getByRole('link', { name: 'SN-A1' }).getAttribute('href');
    expect(deviceHref).toBe(`/console/devices/SN-A1?customer=${DOMAIN}`);
    expect(await tab.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Firmware' }).getAttribute('href')).toBe(
      `/console/firmware?customer=${DOMAIN}`,
    );
    const another = await admin.context.newPage();
    harness.watch(another);
    await another.goto(`${harness.base}${deviceHref}`);
    await another.getByRole('heading', { name: /Device SN-A1/ }).waitFor();
    await another.close();
    // Moving inside the console keeps it; choosing another customer changes the address.
    await tab.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Tags' }).click();
    await tab.waitForURL(`${harness.base}/console/tags?customer=${DOMAIN}`);
    await tab.locator('#acting-on').selectOption(ConsoleHarness.OPERATOR);
    await tab.waitForURL(`${harness.base}/console/tags`);
    await tab.goto(`${harness.base}/console/devices?customer=nobody.admin.browser.test`);
    await tab.locator('#wrong-customer').getByText('“nobody.admin.browser.test” (customer=nobody.admin.browser.test), which does not exist').waitFor();
    expect(await tab.getByRole('link', { name: 'SN-A1' }).count()).toBe(0);
    await harness.check(tab, 'console-unknown-customer');
    await tab.close();
    expect(harness.problems).toEqual([]);
  });

  it('blocks an address with a reason and lifetime, and removes the block', async () => {
    const { page } = admin;
    await nav().getByRole('link', { name: 'IP blocks' }).click();
    await page.getByText('No address is blocked').waitFor();
    await page.locator('input[name=cidr]').fill('203.0.113.300');
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText(/cidr must be an IPv4 or IPv6 address/)
      .waitFor();
    await page.locator('input[name=cidr]').fill('203.0.113.7');
    await page.locator('input[name=reason]').fill('hwid enumeration');
    await page.locator('select[name=ttl]').selectOption({ label: '1 day' });
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await page.getByText('203.0.113.7/32 is blocked until').waitFor();
    const row = page.getByRole('row', { name: /203\.0\.113\.7\/32/ });
    await row.getByText('hwid enumeration').waitFor();
    await harness.check(page, 'admin-ip-blocks');
    await row.getByRole('button', { name: 'Remove the block of 203.0.113.7/32' }).click();
    await page.getByText('The block of 203.0.113.7/32 is removed').waitFor();
    await page.getByText('No address is blocked').waitFor();
    expect(harness.problems).toEqual([]);
  });

  it('turns maintenance on (a banner on every page) and off', async () => {
    const { page } = admin;
    await nav().getByRole('link', { name: 'Maintenance' }).click();
    await page.locator('#maintenance-state').getByText('Maintenance is off').waitFor();
    await page.locator('textarea[name=message]').fill('database upgrade until 20:00 UTC');
    await page.getByRole('button', { name: 'Turn maintenance on' }).click();
    await page.locator('#maintenance-state').getByText('Maintenance is ON').waitFor();
    await page.locator('#maintenance-banner').getByText('database upgrade until 20:00 UTC').waitFor();
    await harness.check(page, 'admin-maintenance-on');
    // Writes now answer 503 with the message, shown as the service says it; the banner is on every page.
    await page.goto(`${harness.base}/console/admin/customers/${DOMAIN}`);
    await page.locator('#maintenance-banner').waitFor();
    await page.getByRole('button', { name: 'Suspend', exact: true }).click();
    const suspend = page.getByRole('dialog', { name: `Suspend ${DOMAIN}?` });
    await suspend.getByRole('button', { name: `Suspend ${DOMAIN}` }).click();
    await suspend.getByRole('alert').getByText('database upgrade until 20:00 UTC').waitFor();
    await suspend.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#customer-status', { hasText: /^active$/ }).waitFor();
    await nav().getByRole('link', { name: 'Maintenance' }).click();
    await page.getByRole('button', { name: 'Turn maintenance off' }).click();
    await page.locator('#maintenance-state').getByText('Maintenance is off').waitFor();
    expect(await page.locator('#maintenance-banner').count()).toBe(0);
    await harness.check(page, 'admin-maintenance');
    expect(harness.problems).toEqual([]);
  });

  it('runs a backup and follows the run to its end and its log; verify takes a key it does not keep; restore waits for the typed confirmation', async () => {
    const { page } = admin;
    await nav().getByRole('link', { name: 'Backups' }).click();
    await page.locator('#backup-backend').waitFor();
    await page.getByText('No backups yet').waitFor();
    await page.getByRole('button', { name: 'Run a backup now' }).click();
    await page.waitForURL(/\/console\/admin\/backups\/[^/]+$/);
    const id = page.url().split('/').pop()!;
    // The page follows the run until it ends, and shows what the service recorded.
    await page
      .locator('#run-status')
      .getByText(/^(succeeded|failed)$/)
      .waitFor({ timeout: 60_000 });
    const run = (await admin.api.get(`/admin/backups/${id}`)) as { status: string; error: string | null; archive_name: string | null; log: string };
    expect(await page.locator('#run-status').textContent()).toBe(run.status);
    if (run.error) await page.getByRole('alert').getByText(run.error).waitFor();
    if (run.log) await page.getByLabel('Run log').waitFor();
    await harness.check(page, 'admin-backup-run');
    await page.reload();
    await page.locator('#run-status').getByText(run.status).waitFor();
    await page.getByRole('link', { name: 'All backups' }).click();
    await page
      .locator('#backup-runs')
      .getByRole('link', { name: /^backup / })
      .waitFor();
    const keyB64 = Buffer.from(secretKey).toString('base64');
    await page.locator('input[name=backup_key_b64]').first().fill(keyB64);
    await page.getByRole('button', { name: 'Verify' }).click();
    if (run.status === 'succeeded') {
      await page.waitForURL(/\/console\/admin\/backups\/[^/]+$/);
      await page.getByRole('heading', { name: /Verify run/ }).waitFor();
      await page.locator('#run-status').getByText('succeeded').waitFor({ timeout: 60_000 });
      await page.getByRole('link', { name: 'All backups' }).click();
    } else {
      // No archive to verify: the service's own message.
      await page
        .getByRole('alert')
        .getByText(/archive/i)
        .waitFor();
    }
    expect(await page.locator('input[name=backup_key_b64]').first().inputValue()).toBe('');
    // The key is in no storage of the browser.
    const stored = await page.evaluate<string>('JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])');
    expect(stored).not.toContain(keyB64);
    expect(await page.getByRole('button', { name: 'Restore' }).isDisabled()).toBe(true);
    await harness.check(page, 'admin-backups');
    expect(harness.problems).toEqual([]);
  });

  it('shows every administrator page, at 1280 px and at 390 px', async () => {
    const { page } = admin;
    const pages: [string, string, string][] = [
      ['Users', '/console/admin/users', 'admin-users'],
      ['Audit log', '/console/admin/audit', 'admin-audit'],
      ['Security events', '/console/admin/security', 'admin-security'],
      ['Background jobs', '/console/admin/jobs', 'admin-jobs'],
      ['Service statistics', '/console/admin/stats', 'admin-stats'],
    ];
    for (const [title, path, shot] of pages) {
      await nav().getByRole('link', { name: title }).click();
      await page.waitForURL(`${harness.base}${path}`);
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
      await harness.loaded(page);
      await harness.check(page, shot);
    }
    // What the earlier tests did is on these pages.
    await page.goto(`${harness.base}/console/admin/audit?domain=${DOMAIN}`);
    await page.locator('#audit').getByText('customer.update').first().waitFor();
    await page.goto(`${harness.base}/console/admin/security`);
    await page.locator('#security-events').getByText('admin_login').first().waitFor();
    await page
      .locator('#security-events')
      .getByRole('button', { name: /Acknowledge event/ })
      .first()
      .click();
    await page.getByText(/is acknowledged/).waitFor();
    await page.goto(`${harness.base}/console/admin/users`);
    await page
      .locator('#users')
      .getByRole('cell', { name: `owner@${DOMAIN}`, exact: true })
      .waitFor();
    expect(await page.getByRole('button', { name: `Disable ${ConsoleHarness.ADMIN}` }).count()).toBe(0);
    // The request log has this session's requests (within 30 s).
    const deadline = Date.now() + 30_000;
    for (;;) {
      await page.goto(`${harness.base}/console/admin/stats?e_route=${encodeURIComponent('/admin/ip-blocks')}&e_status=204`);
      await page.getByText('Requests by customer').waitFor();
      await page.locator('#stats-events, .empty').first().waitFor();
      if ((await page.locator('#stats-events').count()) > 0 || Date.now() > deadline) break;
      await page.waitForTimeout(1000);
    }
    await page
      .locator('#stats-events')
      .getByText(/^DELETE \/admin\/ip-blocks/)
      .waitFor();
    await harness.check(page, 'admin-stats-filtered');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${harness.base}/console/admin/customers`);
    await page.locator('#customers').waitFor();
    await harness.check(page, 'admin-customers-390');
    await page.goto(`${harness.base}/console/admin/stats`);
    await page.getByText('Requests by customer').waitFor();
    await harness.check(page, 'admin-stats-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(harness.problems).toEqual([]);
  });

  it('shows a read-only administrator every page without the controls that change anything', async () => {
    const viewer = `viewer@${ConsoleHarness.OPERATOR}`;
    expect((await admin.api.send('POST', '/members', { email: viewer, role: 'viewer' })).status).toBe(201);
    const readOnly = await harness.login(viewer);
    const { page } = readOnly;
    await page.goto(`${harness.base}/console/admin/customers`);
    await page.locator('#customers').getByRole('link', { name: DOMAIN }).waitFor();
    await page.getByText('You are a read-only administrator').waitFor();
    expect(await page.getByRole('button', { name: 'Open customer' }).count()).toBe(0);
    await page.locator('#customers').getByRole('link', { name: DOMAIN }).click();
    await page.locator('#customer-status').getByText('active').waitFor();
    expect(await page.getByRole('button', { name: /Suspend|Reactivate|Delete|Save/ }).count()).toBe(0);
    await harness.check(page, 'admin-customer-read-only');
    for (const [path, forbidden] of [
      ['/console/admin/ip-blocks', 'Block'],
      ['/console/admin/maintenance', 'Turn maintenance on'],
      ['/console/admin/backups', 'Run a backup now'],
    ]) {
      await page.goto(`${harness.base}${path}`);
      await page.getByText('You are a read-only administrator').waitFor();
      await harness.loaded(page);
      expect(await page.getByRole('button', { name: forbidden, exact: true }).count()).toBe(0);
    }
    await readOnly.context.close();
    expect(harness.problems).toEqual([]);
  });
});

/** The writes (method and path) the page sends from now on: a cancelled confirmation sends none. */
function watchWrites(page: Page): string[] {
  const writes: string[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'GET' && !new URL(request.url()).pathname.startsWith('/auth/'))
      writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  return writes;
}
