import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * A customer's owner in the console: API tokens (shown once, revoked), members (invited, role
 * changed, the last owner kept), tags (renamed with a merge, deleted), log files, usage and the
 * fleet.
 */
describe('console: tokens, members, tags, log files, usage, fleet', () => {
  const DOMAIN = 'people.browser.test';
  const OWNER = 'owner@people.browser.test';
  let harness: ConsoleHarness;
  let owner: Person;

  beforeAll(async () => {
    ({ harness, owner } = await ConsoleHarness.withCustomer(DOMAIN, OWNER));
  });
  afterAll(async () => harness?.close());

  it('creates a token, shows it once with a copy button, lists it and revokes it', async () => {
    const { page } = owner;
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'API tokens' }).click();
    await page.waitForURL(`${harness.base}/console/tokens`);
    await page.getByText('No tokens yet').waitFor();
    await harness.check(page, 'tokens-empty');
    await page.getByLabel('Name').fill('build server');
    await page.getByLabel('Bundle').selectOption('uploader');
    await page.getByLabel('Lifetime in days').fill('400');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText('expires_in_days must be an integer from 1 to 365').waitFor();
    await page.getByLabel('Lifetime in days').fill('30');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.locator('#new-token').textContent())!;
    expect(token.split('.')).toHaveLength(3);
    await page.getByRole('button', { name: 'Copy token' }).waitFor();
    await harness.check(page, 'tokens-created');
    // The token works as a Bearer token.
    const me = await page.request.get(`${harness.base}/auth/me`, { headers: { Authorization: `Bearer ${token}` } });
    expect(me.status()).toBe(200);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const row = page.getByRole('row', { name: /build server/ });
    await expect(row.getByRole('cell', { name: 'active' }).count()).resolves.toBe(1);
    // Its creator as a person: the email, not the internal user:<id>.
    await row.getByRole('cell', { name: OWNER, exact: true }).waitFor();
    expect(await row.getByText(/^user:/).count()).toBe(0);
    await row.getByRole('button', { name: 'Revoke build server' }).click();
    await page.getByText('build server is revoked').waitFor();
    await row.getByRole('cell', { name: 'revoked' }).waitFor();
    await harness.check(page, 'tokens');
    // Deep link survives a reload.
    await page.reload();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    expect(harness.problems).toEqual([]);
  });

  it('invites a member, changes their role, and explains the last-owner rule', async () => {
    const { page } = owner;
    await page.goto(`${harness.base}/console/members`);
    await page.getByRole('row', { name: new RegExp(OWNER) }).waitFor();
    await page.getByLabel('Email address').fill('not an address');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('form', { name: 'Invite someone' }).getByRole('alert').waitFor();
    await page.getByLabel('Email address').fill('editor@people.browser.test');
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    const since = Date.now();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').getByText('editor@people.browser.test is invited as editor').waitFor();
    await harness.mailbox.waitFor((m) => m.to.includes('editor@people.browser.test'), { since });
    await page.getByLabel('Role of editor@people.browser.test').selectOption('viewer');
    await page.getByRole('status').getByText('editor@people.browser.test is now viewer.').waitFor();
    // The only owner cannot step down: the service's own message.
    await page.getByLabel(`Role of ${OWNER}`).selectOption('editor');
    await page.getByRole('alert').filter({ hasText: /owner/ }).waitFor();
    await harness.check(page, 'members');
    await page.getByRole('button', { name: 'Remove editor@people.browser.test' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await page.getByRole('status').getByText('editor@people.browser.test is removed').waitFor();
    expect(harness.problems).toEqual([]);
  });

  it('renames a tag onto another (merge warning) and deletes one', async () => {
    const { page } = owner;
    for (const [hwid, tags] of [
      ['SN-1', ['beta']],
      ['SN-2', ['beta-eu']],
      ['SN-3', ['old']],
    ] as const) {
      expect((await owner.api.send('POST', '/devices', { hwid, tags })).status).toBe(201);
    }
    await page.goto(`${harness.base}/console/tags`);
    await page.getByRole('row', { name: /beta-eu/ }).waitFor();
    await harness.check(page, 'tags');
    await page.getByRole('button', { name: 'Rename beta-eu' }).click();
    await page.getByLabel('New name for beta-eu').fill('beta');
    await page.getByText('beta exists: renaming merges both tags into it.').waitFor();
    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    await page.getByRole('status').getByText('beta-eu is now beta (merged): 0 builds and 2 devices carry it.').waitFor();
    await page.getByRole('button', { name: 'Delete old' }).click();
    await page.getByText('Remove old from 0 builds and 1 devices?').waitFor();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('status').getByText('old is removed from every build and device.').waitFor();
    await page.getByRole('button', { name: 'Delete old' }).waitFor({ state: 'detached' });
    expect(harness.problems).toEqual([]);
  });

  it('lists log files by prefix with their metadata and a download link', async () => {
    const { page } = owner;
    const name = 'ab'.repeat(64);
    const put = await owner.context.request.put(`${harness.base}/logdata/${name}`, {
      headers: { 'X-CSRF-Token': ((await owner.api.get('/auth/me')) as { csrf_token: string }).csrf_token, 'Content-Type': 'text/plain' },
      data: 'boot ok\n',
    });
    expect(put.status()).toBe(200);
    await page.goto(`${harness.base}/console/logs?prefix=cd`);
    await page.getByText('No log file matches these filters.').waitFor();
    await page.getByLabel('Name starts with').fill('ab');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText(`${name.slice(0, 16)}…`).click();
    await page.getByText('text/plain').waitFor();
    // Uploaded by a person of the customer: shown by email.
    await page.getByRole('main').getByText(OWNER, { exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Download' }).getAttribute('href')).toBe(`/logdata/${name}`);
    await harness.check(page, 'logs');
    expect(harness.problems).toEqual([]);
  });

  it('shows the usage by day and the access log, and the fleet by version and last-seen age', async () => {
    const { page } = owner;
    await harness.until(async () => ((await owner.api.get('/stats/events?limit=1')) as { items: unknown[] }).items.length > 0, 40_000);
    await page.goto(`${harness.base}/console/usage`);
    await page.getByText(/^Requests by day: \d+ in all, most on/).waitFor();
    await page.getByText('Numbers by day').first().click();
    await page.getByRole('list', { name: 'Requests by day' }).waitFor();
    await page
      .getByRole('cell', { name: /GET \/console|POST \/auth|GET \/tokens|\/devices/ })
      .first()
      .waitFor();
    await harness.check(page, 'usage');
    expect((await page.request.get(`${harness.base}/firmware/${DOMAIN}/board-x/rev2/main/1.4.0/SN-1`)).status()).toBe(200);
    await harness.until(async () => ((await owner.api.get('/devices/SN-1')) as { last_fw_version: string | null }).last_fw_version === '1.4.0');
    await page.goto(`${harness.base}/console/fleet`);
    const versions = page.getByRole('list', { name: 'Devices by reported firmware version' });
    await versions.getByText('1.4.0').waitFor();
    const ages = page.getByRole('list', { name: 'Devices by last update check' });
    expect(await ages.getByRole('listitem').filter({ hasText: 'under an hour' }).textContent()).toContain('1');
    await harness.check(page, 'fleet');
    // Each bar is a list: the version's bar opens the devices reporting it.
    await versions.getByRole('link', { name: '1.4.0' }).click();
    await page.waitForURL(/\/console\/devices\?status=active&fw_version=1\.4\.0$/);
    await page.getByRole('link', { name: 'SN-1' }).waitFor();
    expect(await page.locator('input[name=fw_version]').inputValue()).toBe('1.4.0');
    await page.goto(`${harness.base}/console/fleet`);
    await ages.getByRole('link', { name: 'never' }).click();
    await page.waitForURL(/\/console\/devices\?status=active&last_seen=never$/);
    await page.getByRole('link', { name: 'SN-1' }).waitFor({ state: 'detached' });
    // At 390 px the menu folds away behind a button.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Devices' }).click();
    await page.waitForURL(`${harness.base}/console/devices`);
    await harness.check(page, 'devices-390px');
    expect(harness.problems).toEqual([]);
  });
});
