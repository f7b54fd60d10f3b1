import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { type APIRequestContext, type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { Mailbox } from '../../e2e/support/mailbox.js';
import { freePort } from '../../e2e/support/stack.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots of every page the tests visit (a CI artifact; git-ignored). */
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'console');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface Person {
  readonly email: string;
  readonly context: BrowserContext;
  readonly page: Page;
  /** API calls as this person (cookies of the context, CSRF token on writes). */
  readonly api: PersonApi;
}

export interface PersonApi {
  get(path: string): Promise<unknown>;
  send(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/**
 * One standalone service and one Chromium per test file (docs/console.md "Tests"): the console
 * as a person uses it, on http://localhost (Chromium keeps the Secure __Host- cookies there).
 * The administrator is the operator's owner; `customer()` opens a customer with its owner.
 */
export class ConsoleHarness {
  readonly problems: string[] = [];

  private constructor(
    readonly base: string,
    readonly mailbox: Mailbox,
    private readonly browser: Browser,
    private readonly service: { close(): Promise<void> },
    private readonly dataDir: string,
  ) {}

  static readonly ADMIN = 'admin@browser.test';
  static readonly OPERATOR = 'operator.browser.test';

  /** `env`: further configuration of the service (e.g. BACKUP_PUBLIC_KEY). */
  static async start(env: Record<string, string> = {}): Promise<ConsoleHarness> {
    const { startStandalone } = await import('../../../apps/standalone/src/standalone.js');
    const dataDir = await mkdtemp(join(tmpdir(), 'fds-console-'));
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const service = await startStandalone(
      {
        DATA_DIR: dataDir,
        PORT: String(port),
        PUBLIC_URL: base,
        OPERATOR_DOMAIN: ConsoleHarness.OPERATOR,
        OPERATOR_ADMIN_EMAIL: ConsoleHarness.ADMIN,
        LOG_LEVEL: 'warn',
        ...env,
      },
      { port },
    );
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    await mkdir(SCREENSHOTS, { recursive: true });
    return new ConsoleHarness(base, new Mailbox(dataDir), browser, service, dataDir);
  }

  async close(): Promise<void> {
    await this.browser?.close();
    await this.service?.close();
    await rm(this.dataDir, { recursive: true, force: true });
  }

  /** A browser context logged in as `email` (the API's login, as the login page does it), on /console. */
  async login(email: string, viewport = { width: 1280, height: 900 }): Promise<Person> {
    const context = await this.browser.newContext({ viewport });
    const since = Date.now();
    const asked = await context.request.post(`${this.base}/auth/login`, { data: { email } });
    expect(asked.status()).toBe(202);
    const code = await this.mailbox.waitForCode(email, { since });
    const verified = await context.request.post(`${this.base}/auth/verify`, { data: { email, code } });
    expect(verified.status()).toBe(200);
    const page = await context.newPage();
    this.watch(page);
    const person: Person = { email, context, page, api: personApi(this.base, context.request) };
    await page.goto(`${this.base}/console`);
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    return person;
  }

  /** A service with a customer opened by the administrator, and its owner logged in. */
  static async withCustomer(domain: string, ownerEmail: string): Promise<{ harness: ConsoleHarness; owner: Person }> {
    const harness = await ConsoleHarness.start();
    const admin = await harness.login(ConsoleHarness.ADMIN);
    await harness.customer(admin, domain, ownerEmail);
    await admin.context.close();
    return { harness, owner: await harness.login(ownerEmail) };
  }

  /** Opens a customer (its owner invited) as the administrator. */
  async customer(admin: Person, domain: string, ownerEmail: string): Promise<void> {
    const created = await admin.api.send('POST', '/admin/customers', { domain, name: domain, owner_email: ownerEmail });
    expect(created.status).toBe(201);
  }

  /** Waits until `condition` holds (what the service records within seconds). */
  async until(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Waits until no part of the page says it is loading (a page may load several parts at once). */
  async loaded(page: Page): Promise<void> {
    await this.until(async () => (await page.getByText(/^Loading/).count()) === 0);
  }

  /** Content-Security-Policy violations and script errors end up in `problems` (asserted empty). */
  watch(page: Page): void {
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) this.problems.push(message.text());
    });
    page.on('pageerror', (error) => this.problems.push(error.message));
  }

  /** A screenshot of the page under test-results/console/, and axe-core: no serious or critical violation. */
  async check(page: Page, name: string): Promise<string> {
    const path = join(SCREENSHOTS, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    // Evaluated through the DevTools protocol: the page's CSP (script-src 'self') does not apply.
    const axeSource = await readFile(AXE, 'utf8');
    await page.evaluate(axeSource);
    // A string, not a function: the test's type check has no DOM library.
    const violations = await page.evaluate<{ id: string; impact: string; help: string; targets: string[] }[]>(`(async () => {
      const result = await window.axe.run(document, { resultTypes: ['violations'] });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
    })()`);
    expect({ page: name, violations: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') }).toEqual({ page: name, violations: [] });
    return path;
  }
}

function personApi(base: string, request: APIRequestContext): PersonApi {
  // Asked each time: the console's own renewals may have rotated the session meanwhile.
  const token = async () => ((await (await request.get(`${base}/auth/me`)).json()) as { csrf_token: string }).csrf_token;
  return {
    async get(path) {
      const response = await request.get(`${base}${path}`, { headers: { Accept: 'application/json' } });
      expect(response.status()).toBe(200);
      return response.json();
    },
    async send(method, path, body) {
      const response = await request.fetch(`${base}${path}`, { method, headers: { 'X-CSRF-Token': await token(), Accept: 'application/json' }, data: body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // empty or text answer
      }
      return { status: response.status(), body: parsed };
    },
  };
}
