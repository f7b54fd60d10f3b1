import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConsoleHarness, type Person } from './support/console-harness.js';

/**
 * A page that fails while rendering (here: the service answers a shape the page does not
 * expect) shows the error's text and a reload link inside the console, not a blank page.
 */
describe('console: a page that fails to render', () => {
  let harness: ConsoleHarness;
  let owner: Person;

  beforeAll(async () => {
    harness = await ConsoleHarness.start();
    owner = await harness.login(ConsoleHarness.ADMIN);
  });
  afterAll(async () => harness?.close());

  it('says what failed with a reload link, keeps the menu, and shows the page again once the answer is right', async () => {
    const { page } = owner;
    const isTagList = (url: URL) => url.pathname === '/tags';
    // `items: null` where the page reads a list: rendering throws (reading its length).
    await page.route(isTagList, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ items: null }) }));
    await page.goto(`${harness.base}/console/tags`);
    const failure = page.locator('#page-error');
    await failure.getByText(/^This page could not be shown: .*null/).waitFor();
    expect(await failure.getAttribute('role')).toBe('alert');
    await page.getByRole('heading', { level: 1, name: 'Tags' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Firmware' }).count()).toBe(1);
    const reload = failure.getByRole('link', { name: 'Reload the page' });
    expect(await reload.getAttribute('href')).toBe(`${harness.base}/console/tags`);
    await harness.check(page, 'page-render-error');

    await page.unroute(isTagList);
    await reload.click();
    await page.getByText(/^No tags yet/).waitFor();
    expect(await page.locator('#page-error').count()).toBe(0);
    expect(harness.problems).toEqual([]);
  });
});
