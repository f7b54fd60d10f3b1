import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { reportClaims, reportUrl, signReport } from '@fds/device-client';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * The device side in the console: the customer's polling interval on the Settings page (shown,
 * checked with the API's limits before sending, changed, back to the service default; the
 * update check's Poll-After follows it) and a device's signed install reports on its page.
 */
describe('console: polling interval and install reports', () => {
  const DOMAIN = 'settings.browser.test';
  const OWNER = 'owner@settings.browser.test';
  let harness: ConsoleHarness;
  let owner: Person;

  beforeAll(async () => {
    ({ harness, owner } = await ConsoleHarness.withCustomer(DOMAIN, OWNER));
  });
  afterAll(async () => harness?.close());

  const pollAfter = async (hwid: string) => {
    const answer = await owner.context.request.get(`${harness.base}/firmware/${DOMAIN}/board-s/rev1/main/1.0.0/${hwid}`);
    expect(answer.status()).toBe(200);
    return Number(answer.headers()['poll-after']);
  };

  it('shows the service default, refuses an interval outside the limits before sending, saves one and goes back to the default', async () => {
    const { page } = owner;
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const state = page.locator('#poll-interval-state');
    await state.getByText(/Devices check every 1 h \(3600 s\), the service default\./).waitFor();
    await harness.check(page, 'settings');

    const field = page.getByLabel('Seconds between update checks');
    const writes: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH') writes.push(request.url());
    });
    await field.fill('30');
    await page.getByRole('button', { name: 'Save the interval' }).click();
    await page.getByRole('alert').getByText('poll_interval_seconds must be an integer from 60 to 604800, or null').waitFor();
    expect(writes).toEqual([]);

    await field.fill('900');
    await page.getByRole('button', { name: 'Save the interval' }).click();
    await page.getByRole('status').getByText('Devices now check every 15 min, from their next check.').waitFor();
    await state.getByText(/Devices check every 15 min \(900 s\), as set here\./).waitFor();
    expect(await owner.api.get('/settings')).toEqual({ poll_interval_seconds: 900, effective_poll_interval_seconds: 900 });
    // The update check advises it (jittered per device over half to one and a half times it) once its cache has the change.
    await harness.until(async () => (await pollAfter('SN-S1')) <= 1350);
    expect(await pollAfter('SN-S1')).toBeGreaterThanOrEqual(450);

    await page.getByRole('button', { name: 'Use the service default' }).click();
    await page.getByRole('status').getByText('Devices now check every 1 h (the service default), from their next check.').waitFor();
    await state.getByText(/the service default\./).waitFor();
    expect(await owner.api.get('/settings')).toEqual({ poll_interval_seconds: null, effective_poll_interval_seconds: 3600 });
    expect(await page.getByRole('button', { name: 'Use the service default' }).count()).toBe(0);
    expect(harness.problems).toEqual([]);
  });

  it("lists a device's signed install reports on its page, newest first, with the reason", async () => {
    const { page } = owner;
    const hwid = 'SN-R1';
    const pair = generateKeyPairSync('ed25519');
    const created = await owner.api.send('POST', '/devices', { hwid, keys: [pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()] });
    expect(created.status).toBe(201);

    await page.goto(`${harness.base}/console/devices/${hwid}`);
    const reports = page.getByRole('region', { name: 'Install reports' });
    await reports.getByText('No install reported yet').waitFor();

    const buildId = randomUUID();
    const send = async (outcome: 'installed' | 'failed', reason: string | undefined, iat: Date) => {
      const claims = reportClaims({ domain: DOMAIN, hwid }, { buildId, fwVersion: '2.1.0', outcome, reason }, iat);
      const answer = await owner.context.request.post(reportUrl(harness.base, DOMAIN, hwid), { data: signReport(claims, pair.privateKey) });
      expect(answer.status()).toBe(201);
    };
    await send('installed', undefined, new Date(Date.now() - 60_000));
    await send('failed', 'boot loop after flashing', new Date());

    await page.reload();
    const rows = reports.locator('tbody tr');
    await rows.nth(1).waitFor();
    expect(await rows.nth(0).locator('td').allTextContents()).toEqual([
      'failed',
      '2.1.0',
      'boot loop after flashing',
      expect.any(String) as unknown as string,
      'no',
    ]);
    expect(await rows.nth(1).locator('td').first().textContent()).toBe('installed');
    expect(await reports.getByRole('link', { name: '2.1.0' }).first().getAttribute('href')).toBe(`/console/firmware/${buildId}`);
    await harness.check(page, 'device-reports');
    expect(harness.problems).toEqual([]);
  });
});
