import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsoleHarness, type Person } from './support/console-harness.js';

const DOMAIN = 'dates.browser.test';
const OWNER = 'owner@dates.browser.test';
/** West of UTC: midnight UTC is the afternoon of the day before here. */
const TIME_ZONE = 'America/Los_Angeles';

/**
 * Build dates in the console (docs/console.md): a build date without a time of day (the what
 * string's `2026-11-20`) is that day in every time zone; one with a time of day is shown in
 * the person's time zone like every other time.
 */
describe('console: dates west of UTC', () => {
  let harness: ConsoleHarness;
  let owner: Person;

  /** PUT /firmware/board-d/rev1/main with `bytes` as the firmware part. */
  async function upload(bytes: string, query = ''): Promise<void> {
    const request = owner.context.request;
    const me = (await (await request.get(`${harness.base}/auth/me`)).json()) as { csrf_token: string };
    const response = await request.put(`${harness.base}/firmware/board-d/rev1/main${query}`, {
      headers: { 'X-CSRF-Token': me.csrf_token, Accept: 'application/json' },
      multipart: { firmware: { name: 'build.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) } },
    });
    expect(response.status()).toBe(201);
  }

  beforeAll(async () => {
    ({ harness, owner } = await ConsoleHarness.withCustomer(DOMAIN, OWNER));
    await upload('boot\0@(#)1.0.0, 2026-11-20, AFI\0code');
    await upload('no what string here', '?fw_version=1.0.1&build_date=2026-11-21T15:30:00Z');
  });
  afterAll(async () => harness?.close());

  it('shows a build date as its day, and a build time in the time zone of the person', async () => {
    const { page } = owner;
    const cdp = await owner.context.newCDPSession(page);
    await cdp.send('Emulation.setTimezoneOverride', { timezoneId: TIME_ZONE });
    await cdp.send('Emulation.setLocaleOverride', { locale: 'en-US' });
    await page.goto(`${harness.base}/console/firmware`);
    expect(await page.evaluate('Intl.DateTimeFormat().resolvedOptions().timeZone')).toBe(TIME_ZONE);
    const dated = page.getByRole('row').filter({ has: page.getByRole('link', { name: '1.0.0', exact: true }) });
    const timed = page.getByRole('row').filter({ has: page.getByRole('link', { name: '1.0.1', exact: true }) });
    await dated.waitFor();
    expect(await dated.getByRole('cell').nth(3).textContent()).toBe('11/20/2026');
    // 15:30 UTC is 07:30 in Los Angeles (PST, UTC-8), the same day.
    expect(await timed.getByRole('cell').nth(3).textContent()).toBe('11/21/2026, 7:30:00 AM');
    await harness.check(page, 'firmware-dates-west-of-utc');
    expect(harness.problems).toEqual([]);
  });
});
