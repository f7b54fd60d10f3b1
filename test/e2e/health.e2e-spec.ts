import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { BACKEND_APPS } from './support/constants.js';
import { letters, sleep } from './support/factories.js';
import { type HttpReply, PROBLEM_TYPE } from './support/http.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** Every part the health history and the /health page cover, in the page's order. */
const PARTS = ['gateway', 'database', 'object_store', ...BACKEND_APPS];

interface PartDay {
  day: string;
  samples: number;
  up: number;
  down: number;
  uptime_ratio: number | null;
}
interface HistoryBody {
  days: { day: string; samples: number; ok: number; degraded: number; down: number; uptime_ratio: number | null }[];
  parts: { part: string; days: PartDay[] }[];
}

const dayBefore = (n: number) => new Date(Date.now() - n * 24 * 3600 * 1000).toISOString().slice(0, 10);

/** A page with the pages' strict policy: no inline script or style, no framing. */
function expectStrictPage(reply: HttpReply): string {
  expect(reply.status).toBe(200);
  expect(reply.contentType).toBe('text/html; charset=utf-8');
  expect(reply.header('content-security-policy')).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  expect(reply.header('x-frame-options')).toBe('DENY');
  expect(reply.header('x-content-type-options')).toBe('nosniff');
  expect(reply.header('cache-control')).toBe('no-store');
  expect(reply.text).not.toMatch(/<style|\sstyle="|\son[a-z]+="/);
  return reply.text;
}

/** docs/api.md "Health, status and metrics": health, X-Request-Id, /metrics and the machine-readable description. */
function expectOk(reply: HttpReply): HttpReply {
  expect(reply.status).toBe(200);
  return reply;
}

describe('health, status, metrics and /openapi.json', () => {
  let rt: Runtime;
  let customer: CustomerFixture;

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await rt.newCustomer();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it('GET /healthz answers 200 text/plain without credentials', async () => {
    const reply = await rt.http.get('/healthz');
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^text\/plain\b/);
    expect(reply.text.trim()).toBe('ok');
  });

  it('GET /readyz answers 200 JSON with the database and the object store ready', async () => {
    const reply = await rt.http.get('/readyz');
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json\b/);
    expect(reply.json()).toEqual({ ready: true, database: true, object_store: true });
  });

  it('GET /status answers 200 ok with every app up', async () => {
    const reply = await rt.http.get('/status');
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json\b/);
    const body = reply.json();
    expect(body).toMatchObject({ status: 'ok', version: '1.0.0', database: true, object_store: true });
    expect(Object.keys(body.apps).sort()).toEqual([...BACKEND_APPS].sort());
    expect(Object.values(body.apps).every((s) => s === 'up')).toBe(true);
    expect(Number.isNaN(Date.parse(body.time))).toBe(false);
  });

  it('GET /health/history?days=7 answers one entry per day, newest (today) first, for the service and each part', async () => {
    const reply = await rt.http.get('/health/history', { query: { days: 7 } });
    expect(reply.status).toBe(200);
    const body = reply.json<HistoryBody>();
    expect(body.days).toHaveLength(7);
    expect(body.days[0].day).toBe(new Date().toISOString().slice(0, 10));
    const sorted = [...body.days]
      .map((d) => d.day)
      .sort()
      .reverse();
    expect(body.days.map((d) => d.day)).toEqual(sorted);
    for (const day of body.days) {
      expect(day).toEqual({
        day: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        samples: expect.any(Number),
        ok: expect.any(Number),
        degraded: expect.any(Number),
        down: expect.any(Number),
        uptime_ratio: day.samples ? expect.any(Number) : null,
      });
    }
    expect(body.parts.map((p) => p.part)).toEqual(PARTS);
    for (const part of body.parts) expect(part.days.map((d) => d.day)).toEqual(sorted);
  });

  it("the roll-up turns the samples of every part into today's uptime, and leaves no old sample behind", async () => {
    // Both runtimes sample every second and roll up every two (support/constants.ts HEALTH_ENV).
    let body: HistoryBody | undefined;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      body = expectOk(await rt.http.get('/health/history', { query: { days: 1 } })).json<HistoryBody>();
      if (body.days[0].samples > 0 && body.parts.every((p) => p.days[0].samples > 0)) break;
      await sleep(250);
    }
    expect(body!.days[0]).toMatchObject({ day: new Date().toISOString().slice(0, 10), samples: expect.any(Number) });
    expect(body!.days[0].samples).toBeGreaterThan(0);
    for (const part of body!.parts) {
      expect(part.days).toHaveLength(1);
      expect(part.days[0].samples).toBeGreaterThan(0);
      expect(part.days[0].up + part.days[0].down).toBe(part.days[0].samples);
      expect(part.days[0].uptime_ratio).toBe(part.days[0].up / part.days[0].samples);
    }
    // White-box: the samples move into admin.health_daily; none waits longer than a few roll-ups.
    await sleep(3_000);
    const [{ n }] = await rt.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.health_sample WHERE ts < now() - interval '10 seconds'`);
    expect(n).toBe(0);
  });

  it('samples of an earlier day are rolled up into that day; a day without samples is no data, not 100 %', async () => {
    // White-box: samples as a gateway would have sent them three days ago (3 ok, 1 with the object store down).
    const day = dayBefore(3);
    const allUp = Object.fromEntries(PARTS.map((p) => [p, 'up']));
    for (const [minute, status, parts] of [
      ['10:00', 'ok', allUp],
      ['10:01', 'ok', allUp],
      ['10:02', 'degraded', { ...allUp, object_store: 'down' }],
      ['10:03', 'ok', allUp],
    ] as const) {
      await rt.query(`INSERT INTO admin.health_sample (ts, status, parts) VALUES ($1, $2, $3::jsonb)`, [`${day}T${minute}:00Z`, status, JSON.stringify(parts)]);
    }
    let body: HistoryBody | undefined;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      body = expectOk(await rt.http.get('/health/history', { query: { days: 7 } })).json<HistoryBody>();
      if (body.days[3].samples > 0) break;
      await sleep(250);
    }
    expect(body!.days[3]).toEqual({ day, samples: 4, ok: 3, degraded: 1, down: 0, uptime_ratio: 0.75 });
    const part = (name: string) => body!.parts.find((p) => p.part === name)!.days;
    expect(part('object_store')[3]).toEqual({ day, samples: 4, up: 3, down: 1, uptime_ratio: 0.75 });
    expect(part('database')[3]).toEqual({ day, samples: 4, up: 4, down: 0, uptime_ratio: 1 });
    // The days around it had no samples: no data.
    for (const d of [2, 4]) {
      expect(body!.days[d]).toEqual({ day: dayBefore(d), samples: 0, ok: 0, degraded: 0, down: 0, uptime_ratio: null });
      for (const p of PARTS) expect(part(p)[d]).toEqual({ day: dayBefore(d), samples: 0, up: 0, down: 0, uptime_ratio: null });
    }
    const [{ n }] = await rt.query<{ n: number }>(`SELECT count(*)::int AS n FROM admin.health_sample WHERE ts < $1`, [`${day}T23:59:59Z`]);
    expect(n).toBe(0);
  });

  it('GET /health/history reaches back 400 days (default 90), every part as long', async () => {
    const long = expectOk(await rt.http.get('/health/history', { query: { days: 400 } })).json<HistoryBody>();
    expect(long.days).toHaveLength(400);
    for (const part of long.parts) expect(part.days).toHaveLength(400);
    expect(long.days[399].day).toBe(dayBefore(399));
    const dflt = expectOk(await rt.http.get('/health/history')).json<HistoryBody>();
    expect(dflt.days).toHaveLength(90);
    expect(expectOk(await rt.http.get('/health/history', { query: { days: 1 } })).json<HistoryBody>().days).toHaveLength(1);
  });

  describe('GET /health, the public status page', () => {
    let html: string;
    beforeAll(async () => {
      html = expectStrictPage(await rt.http.get('/health'));
    });

    it('is HTML complete without its one script (which only refreshes it), with one stylesheet from /static/ cached for a year', async () => {
      // The state is in the HTML as rendered; the script, from /static/ like the stylesheet, only refreshes it from /status.
      const scripts = [...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
      expect(scripts).toEqual([expect.stringMatching(/^<script src="\/static\/health\.[0-9a-f]{12}\.js"[^>]*>$/)]);
      expect(html).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/i);
      const js = expectOk(await rt.http.get(/src="([^"]+)"/.exec(scripts[0])![1]));
      expect(js.header('cache-control')).toBe('public, max-age=31536000, immutable');
      const links = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
      expect(links).toEqual([expect.stringMatching(/^\/static\/health\.[0-9a-f]{12}\.css$/)]);
      const css = expectOk(await rt.http.get(links[0]));
      expect(css.contentType).toBe('text/css; charset=utf-8');
      expect(css.header('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(css.text).toContain('ol.bar');
      expect((await rt.http.get('/static/health.000000000000.css')).status).toBe(404);
      expect((await rt.http.get('/static/nothing.css')).status).toBe(404);
    });

    it('shows the state of each part now, as /status does', async () => {
      expect(html).toMatch(/<p class="overall ok" id="overall" role="status"[^>]*>All parts are working\.<\/p>/);
      for (const part of PARTS)
        expect(html).toMatch(new RegExp(`<section class="part" id="part-${part}"[^>]*>[\\s\\S]*?<span class="state up"[^>]*>Up now</span>`));
      expect(html).toContain('<a href="/status">/status</a>');
      expect(html).toContain('<a href="/docs">');
    });

    it('draws 90 days per part, each day with its figure in text (title and label), and a summary per part', async () => {
      // Samples rolled up today (the roll-up test above waited for them).
      const page = expectStrictPage(await rt.http.get('/health'));
      const today = new Date().toISOString().slice(0, 10);
      for (const part of PARTS) {
        const section = page.slice(page.indexOf(`<section class="part" id="part-${part}"`));
        const bar = section.slice(section.indexOf('<ol class="bar"'), section.indexOf('</ol>'));
        const cells = [...bar.matchAll(/<li class="(u-[a-z]+)" title="([^"]+)"><span class="visually-hidden">([^<]+)<\/span><\/li>/g)];
        expect(cells).toHaveLength(90);
        for (const [, , title, label] of cells) expect(label).toBe(title);
        expect(cells[0][2]).toBe(`${dayBefore(89)}: no data`);
        expect(cells[0][1]).toBe('u-none');
        // Distributed tests that stop an app earlier in the run may have cost today some uptime.
        expect(cells[89][2]).toMatch(new RegExp(`^${today}: (100|\\d{1,2}\\.\\d\\d) % up \\(\\d+ samples\\)$`));
        expect(cells[89][1]).not.toBe('u-none');
        expect(section).toMatch(
          /<p class="summary" id="part-[a-z_]+-summary">[^<]+: [\d.]+ % uptime over the \d+ of the last 90 days with data(; worst day [\d-]+ at [\d.]+ %)?\.<\/p>/,
        );
        expect(bar).toContain(`aria-describedby="part-${part}-summary"`);
      }
      // The object store was down in one of four samples three days ago (the test above).
      expect(page).toContain(`title="${dayBefore(3)}: 75.00 % up (4 samples)"`);
    });

    it('is in /openapi.json as a public text/html page', async () => {
      const doc = (await rt.http.get('/openapi.json')).json<any>();
      expect(doc.paths['/health'].get).toMatchObject({ tags: ['Health'], security: [] });
      expect(Object.keys(doc.paths['/health'].get.responses['200'].content)).toEqual(['text/html']);
      expect(doc.paths['/static/{file}'].get.tags).toEqual(['Health']);
    });
  });

  it.each([['0'], ['401'], ['seven']])('GET /health/history?days=%s answers 400 problem+json', async (days) => {
    const reply = await rt.http.get('/health/history', { query: { days } });
    expect(reply.status).toBe(400);
    expect(reply.contentType).toMatch(/^application\/problem\+json/);
    expect(reply.json()).toMatchObject({
      type: expect.stringMatching(PROBLEM_TYPE),
      title: 'Bad Request',
      status: 400,
      detail: 'days must be an integer from 1 to 400',
      instance: '/health/history',
    });
  });

  describe('/metrics', () => {
    it('answers 401 without credentials, with a Bearer challenge', async () => {
      const reply = await rt.http.get('/metrics');
      expect(reply.status).toBe(401);
      expect(reply.header('www-authenticate')).toBe('Bearer realm="service"');
      expect(reply.json()).toMatchObject({ status: 401, instance: '/metrics' });
    });

    it('answers 401 with a wrong metrics token and with a non-admin API token', async () => {
      expect((await rt.http.get('/metrics', { auth: `${rt.metricsToken}x` })).status).toBe(401);
      expect((await rt.http.get('/metrics', { auth: customer.full })).status).toBe(401);
    });

    it('answers 200 Prometheus text with METRICS_TOKEN', async () => {
      await rt.http.get('/healthz');
      const reply = await rt.http.get('/metrics', { auth: rt.metricsToken });
      expect(reply.status).toBe(200);
      expect(reply.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(reply.text).toMatch(/^# TYPE fds_http_requests_total counter$/m);
      expect(reply.text).toMatch(/^fds_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]\d*$/m);
      // Every sample line is `name{labels} value` or `name value`.
      for (const line of reply.text.split('\n').filter((l) => l && !l.startsWith('#'))) {
        expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? -?[0-9.e+-]+$|^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? (NaN|\+Inf|-Inf)$/);
      }
    });

    it('answers 200 with an administrator API token', async () => {
      const reply = await rt.http.get('/metrics', { auth: await rt.adminToken() });
      expect(reply.status).toBe(200);
      expect(reply.text).toContain('fds_http_requests_total');
    });
  });

  describe('X-Request-Id', () => {
    it('is echoed when the client sends a valid one', async () => {
      const id = `e2e-${letters(16)}`;
      const reply = await rt.http.get('/healthz', { headers: { 'X-Request-Id': id } });
      expect(reply.header('x-request-id')).toBe(id);
    });

    it('is generated when absent, and differs per request', async () => {
      const a = (await rt.http.get('/healthz')).header('x-request-id');
      const b = (await rt.http.get('/healthz')).header('x-request-id');
      expect(a).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
      expect(b).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
      expect(a).not.toBe(b);
    });

    it('is replaced when the sent one is not acceptable, and appears in problem bodies', async () => {
      const reply = await rt.http.get('/health/history', { query: { days: 0 }, headers: { 'X-Request-Id': 'bad id with spaces' } });
      const id = reply.header('x-request-id');
      expect(id).not.toBe('bad id with spaces');
      expect(id).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
      expect(reply.json().request_id).toBe(id);
    });
  });

  describe('/openapi.json', () => {
    let doc: any;
    beforeAll(async () => {
      const reply = await rt.http.get('/openapi.json');
      expect(reply.status).toBe(200);
      expect(reply.contentType).toMatch(/^application\/json\b/);
      doc = reply.json();
    });

    it('is a valid OpenAPI 3.1 document', async () => {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(doc));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    });

    it('declares version 1.0.0, the area tags and the security schemes', () => {
      expect(doc.info.version).toBe('1.0.0');
      const tags = (doc.tags as { name: string }[]).map((t) => t.name);
      for (const tag of ['Firmware', 'Log data', 'Devices', 'Tags', 'Downloads', 'Tokens', 'Members', 'Stats', 'Auth', 'Health', 'Admin']) {
        expect(tags).toContain(tag);
      }
      expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(expect.arrayContaining(['bearer', 'metrics', 'session']));
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    });

    it('describes the log data endpoints under the tag Log data', () => {
      expect(doc.paths['/logdata/{name}'].put.tags).toEqual(['Log data']);
      expect(Object.keys(doc.paths['/logdata/{name}']).sort()).toEqual(['get', 'head', 'put']);
      expect(doc.paths['/logdata/{name}/meta'].get.tags).toEqual(['Log data']);
      expect(doc.paths['/logdata'].get.tags).toEqual(['Log data']);
      expect(doc.paths['/dl/{token}'].get.tags).toEqual(['Downloads']);
    });
  });
});
