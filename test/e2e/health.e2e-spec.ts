import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { BACKEND_APPS } from './support/constants.js';
import { letters } from './support/factories.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** docs/api.md "Health, status and metrics": health, X-Request-Id, /metrics and the machine-readable description. */
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

  it('GET /health/history?days=7 answers one entry per day, newest (today) first', async () => {
    const reply = await rt.http.get('/health/history', { query: { days: 7 } });
    expect(reply.status).toBe(200);
    const body = reply.json<{ days: { day: string; samples: number; ok: number; degraded: number; down: number; uptime_ratio: number | null }[] }>();
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
  });

  it.each([['0'], ['401'], ['seven']])('GET /health/history?days=%s answers 400 problem+json', async (days) => {
    const reply = await rt.http.get('/health/history', { query: { days } });
    expect(reply.status).toBe(400);
    expect(reply.contentType).toMatch(/^application\/problem\+json/);
    expect(reply.json()).toMatchObject({
      type: 'about:blank',
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
