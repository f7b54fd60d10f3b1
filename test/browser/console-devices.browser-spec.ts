import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * Devices in the console: an import from CSV with a bad line (the per-line report), the
 * filters, a device's page (tags, withdraw, what it would get) and a registration by hand.
 */
describe('console: devices', () => {
  const DOMAIN = 'devices.browser.test';
  const OWNER = 'owner@devices.browser.test';
  let harness: ConsoleHarness;
  let owner: Person;

  beforeAll(async () => {
    ({ harness, owner } = await ConsoleHarness.withCustomer(DOMAIN, OWNER));
  });
  afterAll(async () => harness?.close());

  it('imports devices from a CSV file with a bad line and shows which line failed and why', async () => {
    const { page } = owner;
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Devices' }).click();
    await page.getByText('No devices yet: register one or import a file below.').waitFor();
    await harness.check(page, 'devices-empty');
    const csv = ['hwid,tags', 'SN-0001,beta eu', 'bad id,beta', 'SN-0002,eu', 'SN-0003,'].join('\n');
    await page.locator('input[type=file]').setInputFiles({ name: 'devices.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    // First what it would do (a dry run): nothing is stored until "Import".
    const preview = page.getByRole('region', { name: 'What the import would change' });
    await preview.getByText('3 new, 0 changed, 0 unchanged, 1 with errors. Nothing is stored yet.').waitFor();
    expect(await preview.getByRole('region', { name: 'Changes' }).locator('tbody tr').count()).toBe(3);
    expect(((await owner.api.get('/devices')) as { items: unknown[] }).items).toEqual([]);
    await preview.getByRole('button', { name: 'Import: 3 changes' }).click();
    const result = page.locator('#import-result');
    await result.getByText('devices.csv: 3 created, 0 updated, 0 unchanged, 1 with errors.').waitFor();
    const bad = result.locator('tbody tr');
    expect(await bad.count()).toBe(1);
    expect(await bad.locator('td').allTextContents()).toEqual(['3', 'bad id', 'hwid must be 1 to 64 printable ASCII characters (0x21-0x7E, no spaces)']);
    // The list shows the imported devices.
    for (const hwid of ['SN-0001', 'SN-0002', 'SN-0003']) await page.getByRole('link', { name: hwid }).waitFor();
    await harness.check(page, 'devices-import');
  });

  it('filters by tags (any or all), prefix and status, kept in the address', async () => {
    const { page } = owner;
    await page.goto(`${harness.base}/console/devices`);
    const filters = page.getByRole('form', { name: 'Filter devices' });
    await filters.getByLabel('Tags').fill('beta eu');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/tag=beta&tag=eu/);
    // The list answers the filters once its reload lands: SN-0003 (no tags) leaves it.
    await page.getByRole('link', { name: 'SN-0003' }).waitFor({ state: 'detached' });
    expect(await page.getByRole('link', { name: 'SN-0002' }).count()).toBe(1);
    await filters.getByLabel('Devices with').selectOption('all');
    await page.waitForURL(/tag_mode=all/);
    await page.getByRole('link', { name: 'SN-0002' }).waitFor({ state: 'detached' });
    expect(await page.getByRole('link', { name: 'SN-0001' }).count()).toBe(1);
    await page.reload();
    expect(await filters.getByLabel('Tags').inputValue()).toBe('beta eu');
    await page.getByRole('link', { name: 'SN-0001' }).waitFor();
    await harness.check(page, 'devices-filtered');
    await filters.getByRole('button', { name: 'Clear' }).click();
    await filters.getByLabel('HW id starts with').fill('SN-000 3');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('q must be at most 64 printable ASCII characters').waitFor();
  });

  it('tags and withdraws a device on its page and shows what the update check would offer it', async () => {
    const { page } = owner;
    // A general release and a beta build on the line the device reports.
    const uploads = [
      ['1.5.0', 'true'],
      ['1.6.0-beta', 'false'],
    ];
    for (const [version, general] of uploads) {
      const put = await owner.context.request.put(`${harness.base}/firmware/board-x/rev2/main?general_release=${general}`, {
        headers: { 'X-CSRF-Token': await csrf(owner), Accept: 'application/json' },
        multipart: { firmware: { name: 'fw.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(`code\0@(#)${version}, 2026-11-20, AFI\0`) } },
      });
      expect(put.status()).toBe(201);
      if (general === 'false') expect((await owner.api.send('PUT', `/firmware/${(await put.json()).id}/tags/beta`)).status).toBe(204);
    }
    expect((await owner.context.request.get(`${harness.base}/firmware/${DOMAIN}/board-x/rev2/main/1.4.0/SN-0003`)).status()).toBe(200);
    await harness.until(async () => ((await owner.api.get('/devices/SN-0003')) as { last_fw_version: string | null }).last_fw_version === '1.4.0');

    await page.goto(`${harness.base}/console/devices/SN-0003`);
    await page.getByRole('heading', { name: /Device SN-0003/ }).waitFor();
    const preview = page.getByRole('region', { name: 'What this device would get' });
    await preview.getByText('board-x / rev2 / main running 1.4.0').waitFor();
    expect(await preview.getByRole('link', { name: '1.5.0' }).count()).toBe(1);
    expect(await preview.getByRole('link', { name: '1.6.0-beta' }).count()).toBe(0);

    await page.getByLabel('Add a tag').fill('beta');
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('status').getByText('Tag beta added.').waitFor();
    await preview.getByRole('link', { name: '1.6.0-beta' }).waitFor();
    await harness.check(page, 'device');

    // Asked first; Cancel changes nothing.
    await page.getByRole('button', { name: 'Withdraw the device' }).click();
    const confirm = page.getByRole('dialog', { name: 'Withdraw SN-0003?' });
    await confirm
      .locator('#withdraw-device-reach')
      .getByText(/offered general releases only, no longer the builds its tags \(beta\) select/)
      .waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(((await owner.api.get('/devices/SN-0003')) as { status: string }).status).toBe('active');
    await page.getByRole('button', { name: 'Withdraw the device' }).click();
    await confirm.getByRole('button', { name: 'Withdraw the device' }).click();
    await page.getByRole('heading', { name: /Device SN-0003 \(withdrawn\)/ }).waitFor();
    // Withdrawn: treated as unknown, general releases only.
    await preview.getByRole('link', { name: '1.6.0-beta' }).waitFor({ state: 'detached' });
    expect(await preview.getByRole('link', { name: '1.5.0' }).count()).toBe(1);
    await page.reload();
    await page.getByRole('button', { name: 'Reactivate the device' }).click();
    await page.getByRole('heading', { name: /Device SN-0003 \(active\)/ }).waitFor();
    expect(harness.problems).toEqual([]);
  });

  it('registers a device by hand, with the API checking the HW id', async () => {
    const { page } = owner;
    await page.goto(`${harness.base}/console/devices`);
    const form = page.getByRole('form', { name: 'Register a device' });
    await form.getByLabel('HW id').fill('SN-0001');
    await form.getByRole('button', { name: 'Register device' }).click();
    await form.getByRole('alert').waitFor();
    expect(await form.getByRole('alert').textContent()).toMatch(/exists/);
    await form.getByLabel('HW id').fill('SN-0100');
    await form.getByLabel('Tags').fill('eu');
    await form.getByLabel('Attributes (JSON object, optional)').fill('{"site": "Berlin"}');
    await form.getByRole('button', { name: 'Register device' }).click();
    await page.waitForURL(`${harness.base}/console/devices/SN-0100`);
    await page.getByRole('heading', { name: /Device SN-0100/ }).waitFor();
    expect(await page.getByLabel('Attributes (JSON object, at most 8 KiB)').inputValue()).toContain('"site": "Berlin"');
    expect(harness.problems).toEqual([]);
  });

  it('shows what an import would change on existing devices (tags old → new) and changes nothing until it is confirmed', async () => {
    const { page } = owner;
    await page.goto(`${harness.base}/console/devices`);
    const tagsOf = async (hwid: string) => ((await owner.api.get(`/devices/${hwid}`)) as { tags: string[] }).tags;
    const before = { one: await tagsOf('SN-0001'), two: await tagsOf('SN-0002') };
    expect(before).toEqual({ one: ['beta', 'eu'], two: ['eu'] });
    const csv = ['hwid,tags', 'SN-0001,stable', 'SN-0002,eu', 'SN-0200,new'].join('\n');
    const choose = () => page.locator('input[type=file]').setInputFiles({ name: 'retag.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await choose();
    const preview = page.getByRole('region', { name: 'What the import would change' });
    await preview.getByText('1 new, 1 changed, 1 unchanged, 0 with errors. Nothing is stored yet.').waitFor();
    const rows = preview.getByRole('region', { name: 'Changes' }).locator('tbody tr');
    expect(await rows.nth(0).locator('td').allTextContents()).toEqual(['2', 'SN-0001', 'tags change', 'beta eu', 'stable']);
    expect(await rows.nth(1).locator('td').allTextContents()).toEqual(['4', 'SN-0200', 'new device', '—', 'new']);
    await harness.check(page, 'devices-import-preview');
    // Cancel: nothing stored.
    await preview.getByRole('button', { name: 'Cancel' }).click();
    await preview.waitFor({ state: 'detached' });
    expect({ one: await tagsOf('SN-0001'), two: await tagsOf('SN-0002') }).toEqual(before);
    expect((await owner.api.send('PATCH', '/devices/SN-0200', { attributes: {} })).status).toBe(404);
    // Confirmed: the import does what the preview said.
    await choose();
    await preview.getByRole('button', { name: 'Import: 2 changes' }).click();
    await page.locator('#import-result').getByText('retag.csv: 1 created, 1 updated, 1 unchanged, 0 with errors.').waitFor();
    expect(await tagsOf('SN-0001')).toEqual(['stable']);
    expect(await tagsOf('SN-0200')).toEqual(['new']);
    expect(harness.problems).toEqual([]);
  });
});

async function csrf(person: Person): Promise<string> {
  return ((await person.api.get('/auth/me')) as { csrf_token: string }).csrf_token;
}
