import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { freePort } from '../e2e/support/stack.js';
import { launchChromium, recordingPage } from './support/chromium.js';

/**
 * The public pages in Chromium (docs/api.md "API reference" and "Health history and the health
 * page"): /docs renders /openapi.json with Swagger UI, whose "Try it out" answers with a sandbox
 * token; /health reads without JavaScript at 390 px. No Content-Security-Policy violation, and
 * axe-core finds no serious or critical accessibility violation. Screenshots go to
 * test-results/ (kept by CI as artifacts).
 */

const SANDBOX = 'sandbox.browser.test';
const RESULTS = join(process.cwd(), 'test-results');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

describe('the /docs and /health pages in a browser', () => {
  let service: { close(): Promise<void> };
  let dataDir: string;
  let base: string;
  let browser: Browser;
  let axeSource: string;

  beforeAll(async () => {
    const { startStandalone } = await import('../../apps/standalone/src/standalone.js');
    dataDir = await mkdtemp(join(tmpdir(), 'fds-browser-pages-'));
    const port = await freePort();
    base = `http://localhost:${port}`;
    service = await startStandalone(
      {
        DATA_DIR: dataDir,
        PORT: String(port),
        PUBLIC_URL: base,
        OPERATOR_DOMAIN: 'operator.browser.test',
        OPERATOR_ADMIN_EMAIL: 'admin@browser.test',
        SANDBOX_DOMAIN: SANDBOX,
        HEALTH_SAMPLE_INTERVAL_SECONDS: '1',
        HEALTH_ROLLUP_INTERVAL_SECONDS: '1',
        LOG_LEVEL: 'warn',
      },
      { port },
    );
    axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await mkdir(RESULTS, { recursive: true });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const newPage = (options: BrowserContextOptions = {}) => recordingPage(browser, options);

  /** axe-core's serious and critical violations (evaluated through the driver: the page's policy allows no injected script). */
  async function seriousViolations(page: Page): Promise<string[]> {
    await page.evaluate(axeSource);
    const violations = await page.evaluate<AxeViolation[]>('axe.run(document).then((result) => result.violations)');
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join(', ')})`,
      );
  }

  it('/docs renders every operation with its parameters and responses, and "Try it out" with a sandbox token answers 200', async () => {
    const { page, problems } = await newPage({ viewport: { width: 1280, height: 900 } });
    const openapi = (await (await page.request.get(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(openapi.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);

    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock');
    expect(await page.locator('.opblock').count()).toBe(operations);
    expect(await page.textContent('#sandbox')).toContain(SANDBOX);
    await page.screenshot({ path: join(RESULTS, 'docs.png') });

    // The sandbox's read-only token, put into Swagger UI's Bearer authorization by its button.
    const token = (await page.getAttribute('button[data-bundle="read-only"]', 'data-use-token'))!;
    await page.click('button[data-bundle="read-only"]');
    expect(await page.textContent('#reference-status')).toContain('read-only sandbox token is set');

    const operation = page.locator('#operations-Firmware-listFirmware');
    await operation.locator('.opblock-summary-control').click();
    for (const name of ['limit', 'offset', 'order', 'customer']) await operation.locator(`tr[data-param-name="${name}"]`).waitFor();
    expect(await operation.locator('.responses-table .response-col_status').allTextContents()).toEqual(expect.arrayContaining(['200', '400', '401']));
    // The declared example of the answer is shown.
    expect(await operation.locator('.responses-table').textContent()).toContain('fw_version');

    const sent: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/firmware') sent.push(request.headers().authorization);
    });
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    expect(sent).toEqual([`Bearer ${token}`]);
    expect(await operation.locator('.live-responses-table tbody .response-col_description').first().textContent()).toContain('"items"');
    await operation.screenshot({ path: join(RESULTS, 'docs-try-it.png') });

    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('/health shows each part now and its daily uptime, readable without JavaScript at 390 px', async () => {
    // Without JavaScript: the page is complete as served.
    const { page, problems } = await newPage({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    const today = new Date().toISOString().slice(0, 10);
    const deadline = Date.now() + 20_000;
    do {
      await page.goto(`${base}/health`);
      if ((await page.getAttribute('#part-database ol.bar li:last-child', 'title'))?.includes('% up')) break;
      await page.waitForTimeout(500);
    } while (Date.now() < deadline);
    expect(await page.textContent('.overall')).toBe('All parts are working.');
    expect(await page.locator('table tbody tr').count()).toBe(9);
    expect(await page.locator('#part-database ol.bar li').count()).toBe(90);
    expect(await page.getAttribute('#part-database ol.bar li:last-child', 'title')).toMatch(new RegExp(`^${today}: 100 % up \\(\\d+ samples\\)$`));
    expect(await page.getAttribute('#part-database ol.bar li:first-child', 'title')).toMatch(/: no data$/);
    expect(await page.textContent('#part-database-summary')).toMatch(/^Database: 100 % uptime over the 1 of the last 90 days with data\.$/);
    await page.screenshot({ path: join(RESULTS, 'health-390.png'), fullPage: true });
    expect(problems).toEqual([]);

    // With JavaScript (for the measurements and axe only): nothing wider than the screen.
    const checked = await newPage({ viewport: { width: 390, height: 844 } });
    await checked.page.goto(`${base}/health`);
    expect(await checked.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const cellWidth = await checked.page.evaluate<number>("document.querySelector('#part-database ol.bar li').getBoundingClientRect().width");
    expect(cellWidth).toBeGreaterThan(2);
    expect(await seriousViolations(checked.page)).toEqual([]);
    expect(checked.problems).toEqual([]);

    const wide = await newPage({ viewport: { width: 1280, height: 900 } });
    await wide.page.goto(`${base}/health`);
    await wide.page.screenshot({ path: join(RESULTS, 'health.png'), fullPage: true });
    expect(await seriousViolations(wide.page)).toEqual([]);
    expect(wide.problems).toEqual([]);
  });

  it('/health with JavaScript refreshes the state from /status, and says why when it cannot (in the console wording of Retry-After)', async () => {
    const { page, problems } = await newPage({ viewport: { width: 1280, height: 900 } });
    await page.clock.install();
    await page.goto(`${base}/health`);
    expect(await page.textContent('#overall')).toBe('All parts are working.');
    const live = JSON.parse(await (await fetch(`${base}/status`)).text()) as { apps: Record<string, string> };
    // /status as the gateway would answer it with the worker down (served to this page only).
    let next: { status: number; headers: Record<string, string>; body: string } = {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...live, status: 'degraded', time: '2030-01-01T00:00:00.000Z', apps: { ...live.apps, worker: 'down' } }),
    };
    await page.route(`${base}/status`, (route) => route.fulfill(next));
    await page.clock.fastForward(30_000);
    await page.locator('#overall.degraded').waitFor();
    expect(await page.textContent('#overall')).toBe('Degraded: some parts are not working (see below).');
    expect(await page.textContent('#as-of')).toBe('2030-01-01T00:00:00.000Z');
    expect(await page.textContent('tr:has(th:text-is("Worker (mail, background jobs)")) .state')).toBe('Down');
    expect(await page.textContent('#part-worker .state')).toBe('Down now');
    expect(await page.textContent('#part-database .state')).toBe('Up now');

    next = {
      status: 429,
      headers: { 'content-type': 'application/problem+json', 'retry-after': '90' },
      body: JSON.stringify({ status: 429, code: 'rate_limited', title: 'Too Many Requests', detail: 'Too many requests' }),
    };
    await page.clock.fastForward(30_000);
    await page.locator('#refresh-note:not([hidden])').waitFor();
    expect(await page.textContent('#refresh-note')).toBe(
      'The state could not be refreshed: Too many requests (try again in 90 s). It is shown as of the time above.',
    );
    expect(await page.textContent('#overall')).toBe('Degraded: some parts are not working (see below).');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
