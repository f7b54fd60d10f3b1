import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, letters, randomLogName } from '../support/factories.js';
import { startRuntime, type CustomerFixture, type Runtime } from '../support/runtime.js';

/**
 * Every request leaves a request-log entry in the admin app. The read
 * endpoint (GET /admin/stats/events) is not declared in libs/contracts yet, so this checks the
 * admin schema's table through PostgreSQL: distributed runtime only.
 */

interface Row {
  ts: Date;
  domain: string | null;
  actor: string | null;
  method: string;
  route: string;
  path: string;
  status: number;
  ip: string;
  user_agent: string;
  bytes_in: string | number;
  bytes_out: string | number;
  duration_ms: number;
  request_id: string;
}

describe('request log (distributed)', () => {
  let rt: Runtime;
  let customer: CustomerFixture;

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await rt.newCustomer();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it('every request reaches the admin app as an entry with all its fields', async () => {
    const started = Date.now();
    const ids = {
      file: `e2e-${letters(16)}`,
      health: `e2e-${letters(16)}`,
      unknown: `e2e-${letters(16)}`,
      invalid: `e2e-${letters(16)}`,
      upload: `e2e-${letters(16)}`,
      probe: `e2e-${letters(16)}`,
    };
    const name = randomLogName();
    const unknownPath = `/${letters(12)}`;
    const replies = {
      file: await rt.http.get(`/logdata/${name}`, { auth: customer.readOnly, headers: { 'X-Request-Id': ids.file } }),
      health: await rt.http.get('/healthz', { headers: { 'X-Request-Id': ids.health } }),
      unknown: await rt.http.get(unknownPath, { headers: { 'X-Request-Id': ids.unknown } }),
      invalid: await rt.http.get('/logdata', { auth: customer.full, query: { limit: 0 }, headers: { 'X-Request-Id': ids.invalid } }),
      upload: await rt.http.put(`/logdata/${randomLogName()}`, {
        auth: customer.readOnly,
        body: Buffer.alloc(100, 1),
        headers: { 'X-Request-Id': ids.upload },
      }),
      probe: await rt.http.get('/logdata', { auth: customer.full, query: { customer: rt.operatorDomain }, headers: { 'X-Request-Id': ids.probe } }),
    };
    expect(replies.file.status).toBe(404);
    expect(replies.health.status).toBe(200);
    expect(replies.unknown.status).toBe(404);
    expect(replies.invalid.status).toBe(400);
    expect(replies.upload.status).toBe(403);
    expect(replies.probe.status).toBe(404);

    const rows = await eventually(
      () => rt.query<Row>('SELECT * FROM admin.request_log WHERE request_id = ANY($1)', [Object.values(ids)]),
      (found) => found.length >= 6,
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(rows).toHaveLength(6);
    const byId = new Map(rows.map((r) => [r.request_id, r]));
    const finished = Date.now();

    for (const row of rows) {
      expect(row.ip).toBe('127.0.0.1');
      expect(row.user_agent).toBe('fds-e2e');
      expect(row.method).toMatch(/^(GET|PUT)$/);
      expect(row.duration_ms).toBeGreaterThanOrEqual(0);
      expect(new Date(row.ts).getTime()).toBeGreaterThanOrEqual(started - 1000);
      expect(new Date(row.ts).getTime()).toBeLessThanOrEqual(finished + 1000);
    }
    expect(byId.get(ids.file)).toMatchObject({
      domain: customer.domain,
      actor: `token:${customer.tokens['read-only'].id}`,
      method: 'GET',
      route: '/logdata/{name}',
      path: `/logdata/${name}`,
      status: 404,
    });
    expect(Number(byId.get(ids.file)!.bytes_out)).toBe(Number(replies.file.header('content-length')));
    expect(byId.get(ids.health)).toMatchObject({ domain: null, actor: null, method: 'GET', route: '/healthz', path: '/healthz', status: 200 });
    expect(byId.get(ids.unknown)).toMatchObject({ method: 'GET', path: unknownPath, status: 404 });
    expect(byId.get(ids.unknown)!.route).not.toBe(unknownPath);
    // The path is stored without the query string.
    expect(byId.get(ids.invalid)).toMatchObject({
      domain: customer.domain,
      actor: `token:${customer.tokens.full.id}`,
      route: '/logdata',
      path: '/logdata',
      status: 400,
    });
    // Refused after authentication: still attributed to the credential and its customer
    // (customer access log, stats per customer, tenant-probing detection).
    expect(byId.get(ids.upload)).toMatchObject({
      method: 'PUT',
      route: '/logdata/{name}',
      status: 403,
      domain: customer.domain,
      actor: `token:${customer.tokens['read-only'].id}`,
    });
    expect(byId.get(ids.probe)).toMatchObject({
      method: 'GET',
      route: '/logdata',
      status: 404,
      domain: customer.domain,
      actor: `token:${customer.tokens.full.id}`,
    });
  });

  it('an upload the client stops halfway is recorded as 499 (closed by the client), and nothing is stored', async () => {
    const requestId = `e2e-${letters(16)}`;
    const name = randomLogName();
    const url = new URL(`/logdata/${name}`, rt.baseUrl);
    await new Promise<void>((resolve) => {
      const req = httpRequest(url, {
        method: 'PUT',
        agent: false,
        headers: { authorization: `Bearer ${customer.full}`, 'content-length': String(1024 * 1024), 'x-request-id': requestId, 'user-agent': 'fds-e2e' },
      });
      req.on('error', () => undefined); // the connection is ours to break
      req.on('close', () => resolve());
      req.write(Buffer.alloc(64 * 1024, 1));
      setTimeout(() => req.destroy(), 200);
    });
    const [row] = await eventually(
      () => rt.query<Row>('SELECT * FROM admin.request_log WHERE request_id = $1', [requestId]),
      (found) => found.length === 1,
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(row).toMatchObject({
      method: 'PUT',
      route: '/logdata/{name}',
      path: `/logdata/${name}`,
      status: 499,
      domain: customer.domain,
      actor: `token:${customer.tokens.full.id}`,
    });
    expect(Number(row.bytes_out)).toBe(0);
    expect((await rt.http.get(`/logdata/${name}`, { auth: customer.readOnly })).status).toBe(404);
  });
});
