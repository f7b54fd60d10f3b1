import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * Firmware in the console: an editor uploads a build by drag and drop (the what string parsed
 * first), tags it and sees who gets it, withdraws it; a viewer sees the build without the
 * controls.
 */
describe('console: firmware', () => {
  const DOMAIN = 'firmware.browser.test';
  const OWNER = 'owner@firmware.browser.test';
  const VIEWER = 'viewer@firmware.browser.test';
  let harness: ConsoleHarness;
  let owner: Person;
  let buildUrl: string;

  beforeAll(async () => {
    ({ harness, owner } = await ConsoleHarness.withCustomer(DOMAIN, OWNER));
    // A device tagged beta that last checked in running 1.4.0 on the build's product line.
    expect((await owner.api.send('POST', '/devices', { hwid: 'SN-0001', tags: ['beta'] })).status).toBe(201);
    expect((await owner.api.send('POST', '/devices', { hwid: 'SN-0002', tags: ['stable'] })).status).toBe(201);
    for (const hwid of ['SN-0001', 'SN-0002']) {
      const check = await owner.context.request.get(`${harness.base}/firmware/${DOMAIN}/board-x/rev2/main/1.4.0/${hwid}`);
      expect(check.status()).toBe(200);
    }
    // Sightings are recorded within seconds (docs/api.md "Devices").
    await harness.until(async () => ((await owner.api.get('/devices/SN-0002')) as { last_fw_version: string | null }).last_fw_version === '1.4.0');
    await harness.until(async () => ((await owner.api.get('/devices/SN-0001')) as { last_fw_version: string | null }).last_fw_version === '1.4.0');
  });
  afterAll(async () => harness?.close());

  it('uploads a build by drag and drop: the parsed what string first, then progress, then the build page', async () => {
    const { page } = owner;
    await page.goto(`${harness.base}/console/firmware`);
    await page.getByText('No builds yet.').waitFor();
    await harness.check(page, 'firmware-empty');
    await page.getByRole('link', { name: 'Upload a build' }).first().click();
    await page.waitForURL(`${harness.base}/console/firmware/upload`);
    // A file dropped on the drop zone, as a person drags it from their desktop.
    const dropped = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new TextEncoder().encode('boot code\\0@(#)1.5.0, 2026-11-20, AFI\\0@(#)junk\\0more code')], 'build-1.5.0.bin'));
      return transfer;
    })()`);
    await page.dispatchEvent('.dropzone', 'drop', { dataTransfer: dropped });
    const parsed = page.getByRole('form', { name: 'Build details' });
    await parsed.getByRole('heading', { name: 'build-1.5.0.bin' }).waitFor();
    expect(await parsed.getByRole('row', { name: /1\.5\.0, 2026-11-20, AFI/ }).count()).toBe(1);
    expect(await parsed.getByRole('radio', { name: 'Use what string 0' }).isChecked()).toBe(true);
    await harness.check(page, 'firmware-upload-parsed');
    await parsed.getByLabel('Hardware name').fill('board-x');
    await parsed.getByLabel('Hardware version').fill('rev2');
    await parsed.getByLabel('Firmware name').fill('bad name');
    await parsed.getByRole('button', { name: 'Store the build' }).click();
    await page.getByText('fw_name must be 1 to 64 printable ASCII characters without spaces').waitFor();
    await parsed.getByLabel('Firmware name').fill('main');
    await parsed.getByLabel('Release notes (optional)').fill('Fixes the boot loop.');
    await parsed.getByRole('button', { name: 'Store the build' }).click();
    await page.waitForURL(/\/console\/firmware\/[0-9a-f-]{36}$/);
    buildUrl = page.url();
    await page.getByRole('heading', { name: 'main 1.5.0 (active)' }).waitFor();
    expect(await page.getByRole('link', { name: /Download the release notes/ }).count()).toBe(1);
    await page.locator('#audience-rule').getByText('Nobody yet').waitFor();
    // The uploader as a person (the email), not the internal user:<id>.
    await page.getByRole('main').getByText(OWNER, { exact: true }).waitFor();
    expect(await page.getByText(/^user:[0-9a-f-]{36}$/).count()).toBe(0);
  });

  it('tags the build and shows who gets it, then withdraws it (If-Match) and reactivates it', async () => {
    const { page } = owner;
    await page.goto(buildUrl);
    await page.getByLabel('Add a tag').fill('bad tag');
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByText('tag must match').waitFor();
    await page.getByLabel('Add a tag').fill('beta');
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByText('Tag beta added.').waitFor();
    await page.locator('#audience-rule').getByText('sharing one of its tags (beta)').waitFor();
    expect(await page.locator('#audience-devices').textContent()).toBe('1');
    const audience = page.getByRole('region', { name: 'Who gets this build' });
    expect(await audience.getByRole('link', { name: 'SN-0001' }).count()).toBe(1);
    expect(await audience.getByRole('link', { name: 'SN-0002' }).count()).toBe(0);
    await harness.check(page, 'firmware-build');

    // Withdrawing asks first, saying how many devices stop being offered the build; Cancel changes nothing.
    await page.getByRole('button', { name: 'Withdraw the build' }).click();
    const confirm = page.getByRole('dialog', { name: 'Withdraw main 1.5.0?' });
    await confirm
      .locator('#withdraw-reach')
      .getByText(/stops offering it to 1 device at their next check\./)
      .waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(((await owner.api.get(`/firmware/${buildUrl.split('/').pop()}`)) as { status: string }).status).toBe('active');
    await page.getByRole('heading', { name: 'main 1.5.0 (active)' }).waitFor();
    await page.getByRole('button', { name: 'Withdraw the build' }).click();
    await confirm.getByRole('button', { name: 'Withdraw the build' }).click();
    await page.getByRole('status').getByText('The build is withdrawn: no update check offers it.').waitFor();
    await page.getByRole('heading', { name: 'main 1.5.0 (withdrawn)' }).waitFor();
    await page.locator('#audience-rule').getByText('Nobody: the build is withdrawn.').waitFor();
    // The deep link survives a reload.
    await page.reload();
    await page.getByRole('heading', { name: 'main 1.5.0 (withdrawn)' }).waitFor();
    await page.getByRole('button', { name: 'Reactivate the build' }).click();
    await page.getByRole('heading', { name: 'main 1.5.0 (active)' }).waitFor();

    // The list, filtered by tag and status (kept in the address).
    await page.goto(`${harness.base}/console/firmware?tag=beta&status=active`);
    await page.getByRole('link', { name: '1.5.0' }).waitFor();
    expect(await page.getByLabel('Tag', { exact: true }).inputValue()).toBe('beta');
    await harness.check(page, 'firmware-list');
    await page.getByLabel('Status', { exact: true }).selectOption('withdrawn');
    await page.getByText('No build matches these filters').waitFor();
    expect(page.url()).toContain('status=withdrawn');
    expect(harness.problems).toEqual([]);
  });

  it('withdraws a general release only after saying that it reaches every device of its line, known or not', async () => {
    const { page } = owner;
    const put = await owner.context.request.put(`${harness.base}/firmware/board-x/rev2/main?general_release=true`, {
      headers: { 'X-CSRF-Token': ((await owner.api.get('/auth/me')) as { csrf_token: string }).csrf_token, Accept: 'application/json' },
      multipart: { firmware: { name: 'fw.bin', mimeType: 'application/octet-stream', buffer: Buffer.from('code\0@(#)1.6.0, 2026-11-21, AFI\0') } },
    });
    expect(put.status()).toBe(201);
    const id = ((await put.json()) as { id: string }).id;
    const writes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH') writes.push(new URL(request.url()).pathname);
    });
    await page.goto(`${harness.base}/console/firmware/${id}`);
    await page.getByRole('heading', { name: 'main 1.6.0 (active)' }).waitFor();
    await page.getByRole('button', { name: 'Withdraw the build' }).click();
    const confirm = page.getByRole('dialog', { name: 'Withdraw main 1.6.0?' });
    const reach = confirm.locator('#withdraw-reach');
    await reach.getByText(/^It is a general release: every update check of board-x \/ rev2 \/ main with an older version is offered it\./).waitFor();
    // Both devices last reported 1.4.0 on this line; devices the registry does not know get it too.
    await reach.getByText(/stops offering it to 2 devices at their next check, and to every device the registry does not know\./).waitFor();
    await harness.check(page, 'firmware-withdraw-confirm');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(writes).toEqual([]);
    expect(((await owner.api.get(`/firmware/${id}`)) as { status: string }).status).toBe('active');
    await page.getByRole('button', { name: 'Withdraw the build' }).click();
    await confirm.getByRole('button', { name: 'Withdraw the build' }).click();
    await page.getByRole('heading', { name: 'main 1.6.0 (withdrawn)' }).waitFor();
    expect(writes).toEqual([`/firmware/${id}`]);
    expect(harness.problems).toEqual([]);
  });

  it('makes a tagged build a general release after saying how many devices that reaches, and takes it back', async () => {
    const { page } = owner;
    const put = await owner.context.request.put(`${harness.base}/firmware/board-x/rev2/main`, {
      headers: { 'X-CSRF-Token': ((await owner.api.get('/auth/me')) as { csrf_token: string }).csrf_token, Accept: 'application/json' },
      multipart: { firmware: { name: 'fw.bin', mimeType: 'application/octet-stream', buffer: Buffer.from('code\0@(#)1.7.0, 2026-11-22, AFI\0') } },
    });
    expect(put.status()).toBe(201);
    const id = ((await put.json()) as { id: string }).id;
    await page.goto(`${harness.base}/console/firmware/${id}`);
    await page.getByRole('heading', { name: 'main 1.7.0 (active)' }).waitFor();
    await page.getByRole('button', { name: 'Make it a general release' }).click();
    const confirm = page.getByRole('dialog', { name: 'Make main 1.7.0 a general release?' });
    // Without tags it reaches nobody now; as a general release both devices on 1.4.0 of the line.
    await confirm
      .locator('#general-release-reach')
      .getByText(/offered it from its next check: 2 devices known now, and every device the registry does not know\./)
      .waitFor();
    await confirm.getByRole('button', { name: 'Make it a general release' }).click();
    await page.locator('#general-release').getByText('yes: offered to every device').waitFor();
    expect(((await owner.api.get(`/firmware/${id}`)) as { general_release: boolean }).general_release).toBe(true);
    await page.getByRole('button', { name: 'Stop the general release' }).click();
    await page.getByRole('dialog', { name: 'Stop the general release of main 1.7.0?' }).getByRole('button', { name: 'Stop the general release' }).click();
    await page.locator('#general-release').getByText('no').waitFor();
    expect(((await owner.api.get(`/firmware/${id}`)) as { general_release: boolean }).general_release).toBe(false);
    expect(harness.problems).toEqual([]);
  });

  it('shows a viewer the build without the controls their role may not use', async () => {
    expect((await owner.api.send('POST', '/members', { email: VIEWER, role: 'viewer' })).status).toBe(201);
    const viewer = await harness.login(VIEWER, { width: 390, height: 844 });
    const { page } = viewer;
    await page.goto(buildUrl);
    await page.getByRole('heading', { name: 'main 1.5.0 (active)' }).waitFor();
    expect(await page.getByRole('button', { name: 'Withdraw the build' }).count()).toBe(0);
    expect(await page.getByLabel('Add a tag').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove tag beta' }).count()).toBe(0);
    // The audience's counts stay on the screen at 390 px, beside their labels.
    await page.locator('#audience-devices', { hasText: /^1$/ }).waitFor();
    const counts = await page.locator('#audience-counts dd').all();
    expect(counts.length).toBe(3);
    for (const count of counts) {
      const box = await count.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.width).toBeGreaterThan(0);
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      expect(await count.isVisible()).toBe(true);
    }
    await harness.check(page, 'firmware-build-viewer-390px');
    await page.goto(`${harness.base}/console/firmware/upload`);
    await page.getByText('does not allow this page').waitFor();
    expect(harness.problems).toEqual([]);
  });
});
