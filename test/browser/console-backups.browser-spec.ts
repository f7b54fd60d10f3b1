import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * Backups through the console on a service started with no backup setting at all
 * (docs/operations.md "Backups and restores"): the page says where the generated secret key
 * lies; a backup, a verify and a restore all succeed without anyone entering a key.
 */
describe('console: backups on defaults', () => {
  let harness: ConsoleHarness;
  let admin: Person;

  beforeAll(async () => {
    harness = await ConsoleHarness.start();
    admin = await harness.login(ConsoleHarness.ADMIN);
  });
  afterAll(async () => harness?.close());

  const nav = () => admin.page.getByRole('navigation', { name: 'Console pages' });
  /** Waits on the run's page until it ends; its status and log. */
  const finished = async () => {
    const { page } = admin;
    await page.waitForURL(/\/console\/admin\/backups\/[^/]+$/);
    const id = page.url().split('/').pop()!;
    await page
      .locator('#run-status')
      .getByText(/^(succeeded|failed)$/)
      .waitFor({ timeout: 90_000 });
    return (await admin.api.get(`/admin/backups/${id}`)) as { status: string; error: string | null; archive_name: string; log: string };
  };

  it('says where the secret half of the generated key lies, then backs up, verifies and restores with no key entered', async () => {
    const { page } = admin;
    const listed = (await admin.api.get('/admin/backups')) as { key: { source: string; secret_key_file: string | null } };
    expect(listed.key).toMatchObject({ source: 'generated', secret_key_file: expect.stringMatching(/\/backup-secret\.key$/) });
    await nav().getByRole('link', { name: 'Backups' }).click();
    await page.locator('#backup-key').getByText(listed.key.secret_key_file!).waitFor();
    expect(await page.locator('#backup-key').textContent()).toContain('Keep a copy of that file off this machine');
    await harness.check(page, 'admin-backups-generated-key');

    await page.getByRole('button', { name: 'Run a backup now' }).click();
    const backup = await finished();
    expect(backup).toMatchObject({ status: 'succeeded', error: null });

    // Written after the backup: the restore takes it away again.
    const later = 'later.backups.browser.test';
    expect((await admin.api.send('POST', '/admin/customers', { domain: later, name: later, owner_email: `owner@${later}` })).status).toBe(201);

    await page.getByRole('link', { name: 'All backups' }).click();
    await page
      .locator('#backup-runs')
      .getByRole('link', { name: /^backup / })
      .waitFor();
    expect(await page.locator('input[name=backup_key_b64]').first().inputValue()).toBe('');
    await page.getByRole('button', { name: 'Verify' }).click();
    const verified = await finished();
    expect(verified).toMatchObject({ status: 'succeeded', archive_name: backup.archive_name, error: null });
    expect(verified.log).toContain("with the service's generated key");

    await page.getByRole('link', { name: 'All backups' }).click();
    await page.locator('select[name=archive_name]').nth(1).selectOption(backup.archive_name);
    await page.locator('input[name=confirm]').fill(`restore ${backup.archive_name}`);
    await page.getByRole('button', { name: 'Restore' }).click();
    const restored = await finished();
    expect(restored).toMatchObject({ status: 'succeeded', archive_name: backup.archive_name, error: null });
    await harness.until(async () => (await admin.context.request.get(`${harness.base}/admin/customers/${later}`)).status() === 404);
    await harness.until(async () => ((await admin.api.get('/admin/settings/maintenance')) as { enabled: boolean }).enabled === false);
    expect(harness.problems).toEqual([]);
  });
});
