import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, letters } from './support/factories.js';
import { clientAddress, productLine, updateCheckPath } from './support/firmware.js';
import type { HttpReply } from './support/http.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** docs/api.md "CORS": per-customer cors_origins on preflights and responses, never credentials. */
describe('CORS per customer', () => {
  let rt: Runtime;
  let admin: string;
  let a: CustomerFixture;
  let b: CustomerFixture;
  const originA = `https://console-${letters(8)}.example`;
  const originB = `https://app-${letters(8)}.example`;
  const unlisted = `https://nobody-${letters(8)}.example`;

  const setOrigins = async (customer: CustomerFixture, origins: string[]) =>
    expect((await rt.http.patch(`/admin/customers/${customer.domain}`, { auth: admin, json: { cors_origins: origins } })).status).toBe(200);
  const preflight = (path: string, origin: string, method = 'GET') =>
    rt.http.request('OPTIONS', path, {
      headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization' },
    });
  const corsHeaders = (reply: HttpReply) => Object.fromEntries(Object.entries(reply.rawHeaders).filter(([name]) => name.startsWith('access-control-')));

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    [a, b] = [await rt.newCustomer(), await rt.newCustomer()];
    await setOrigins(a, [originA]);
    await setOrigins(b, [originB]);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it('a preflight from an origin some customer lists is answered 204 with the methods, headers and max age', async () => {
    const reply = await eventually(
      () => preflight('/firmware', originA),
      (r) => r.status === 204,
      { timeoutMs: 35_000, intervalMs: 500 },
    );
    expect(corsHeaders(reply)).toEqual({
      'access-control-allow-origin': originA,
      'access-control-allow-methods': expect.stringContaining('GET'),
      'access-control-allow-headers': 'Authorization, Content-Type, X-CSRF-Token',
      'access-control-max-age': '600',
    });
    expect(reply.header('vary')).toMatch(/\bOrigin\b/);
    expect(reply.header('access-control-allow-credentials')).toBeNull();
    const device = await preflight('/devices/some-device', originB, 'PATCH');
    expect(device.status).toBe(204);
    expect(device.header('access-control-allow-methods')?.split(', ')).toContain('PATCH');
  });

  it('a preflight from an unlisted origin, or for a method the path lacks, is 403 without CORS headers', async () => {
    for (const reply of [await preflight('/firmware', unlisted), await preflight('/firmware/parse', originA, 'DELETE')]) {
      expect(reply.status).toBe(403);
      expect(corsHeaders(reply)).toEqual({});
    }
  });

  it('OPTIONS answers 204 with Allow on a path that exists, 404 on one that does not (never 405)', async () => {
    const plain = await rt.http.request('OPTIONS', '/firmware');
    expect(plain.status).toBe(204);
    expect(plain.header('allow')).toContain('GET');
    expect((await rt.http.request('OPTIONS', `/no-such-${letters(6)}`)).status).toBe(404);
  });

  it("responses carry Allow-Origin and Vary for the acting customer's own origins only, never Allow-Credentials", async () => {
    const listed = await rt.http.get('/firmware', { auth: a.readOnly, headers: { Origin: originA } });
    expect(listed.status).toBe(200);
    expect(corsHeaders(listed)).toEqual({ 'access-control-allow-origin': originA });
    expect(listed.header('vary')).toMatch(/\bOrigin\b/);
    // Listed by another customer, or by nobody: no CORS headers.
    for (const origin of [originB, unlisted]) {
      const reply = await rt.http.get('/firmware', { auth: a.readOnly, headers: { Origin: origin } });
      expect(reply.status).toBe(200);
      expect(corsHeaders(reply)).toEqual({});
    }
    // Without credentials no customer is acted on.
    expect(corsHeaders(await rt.http.get('/firmware', { headers: { Origin: originA } }))).toEqual({});
  });

  it('the public update check uses the list of the domain in its path, for preflight and response', async () => {
    const path = updateCheckPath(a.domain, productLine(), '1.0');
    const pre = await preflight(path, originA);
    expect(pre.status).toBe(204);
    expect(pre.header('access-control-allow-origin')).toBe(originA);
    expect((await preflight(path, originB)).status).toBe(403);
    const reply = await rt.http.get(path, { headers: { Origin: originA }, localAddress: clientAddress() });
    expect(reply.header('access-control-allow-origin')).toBe(originA);
    expect(reply.header('access-control-allow-credentials')).toBeNull();
    const other = await rt.http.get(path, { headers: { Origin: originB }, localAddress: clientAddress() });
    expect(corsHeaders(other)).toEqual({});
  });

  it('a change of the list takes effect (within CREDENTIAL_CACHE_SECONDS; at once when the change event arrives)', async () => {
    const added = `https://added-${letters(8)}.example`;
    await setOrigins(a, [added]);
    const reply = await eventually(
      () => rt.http.get('/firmware', { auth: a.readOnly, headers: { Origin: added } }),
      (r) => r.header('access-control-allow-origin') === added,
      { timeoutMs: 35_000, intervalMs: 250 },
    );
    expect(reply.status).toBe(200);
    expect(
      (
        await eventually(
          () => preflight('/firmware', added),
          (r) => r.status === 204,
          { timeoutMs: 35_000, intervalMs: 250 },
        )
      ).status,
    ).toBe(204);
    const removed = await eventually(
      () => rt.http.get('/firmware', { auth: a.readOnly, headers: { Origin: originA } }),
      (r) => r.header('access-control-allow-origin') === null,
      { timeoutMs: 35_000, intervalMs: 250 },
    );
    expect(corsHeaders(removed)).toEqual({});
    expect(
      (
        await eventually(
          () => preflight('/firmware', originA),
          (r) => r.status === 403,
          { timeoutMs: 35_000, intervalMs: 250 },
        )
      ).status,
    ).toBe(403);
  });
});
