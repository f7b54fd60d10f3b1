import { randomBytes, randomInt } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type AuditBody, expectStatus, readOnlyAdministrator, requestCode, waitForAudit } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { eventually } from './support/factories.js';
import { productLine, updateCheckPath } from './support/firmware.js';
import type { HttpReply, Session } from './support/http.js';
import { type CustomerFixture, type Runtime, startRuntime } from './support/runtime.js';
import { RFC3339 } from './support/formats.js';

/**
 * Maintenance mode and IP blocks (docs/api.md "Maintenance mode and IP blocks"). Maintenance
 * is global: every test that turns it on turns it off again (afterEach). Blocks are set on
 * addresses of their own (127.0.0.x, sent from with localAddress) and removed by each test.
 */

const DEFAULT_MESSAGE = 'the service is in maintenance: writes are paused, try again later';
/** Gateways apply a change within 2 s; the tests allow load on top. */
const PROPAGATION_MS = 5_000;

interface IpBlockBody {
  cidr: string;
  reason: string | null;
  created_by: string;
  created_at: string;
  expires_at: string | null;
}

/** A loopback address of this test's own, never 127.0.0.1 (the other requests' address). `even`: the lower of a /31 pair. */
function ownAddress(even = false): string {
  const last = 20 + randomInt(115) * 2;
  return `127.0.0.${even ? last : last + 1}`;
}

/** Polls until `accept` holds; fails with the last reply. */
async function until(probe: () => Promise<HttpReply>, accept: (r: HttpReply) => boolean, timeoutMs = PROPAGATION_MS): Promise<HttpReply> {
  const reply = await eventually(probe, accept, { timeoutMs, intervalMs: 100 });
  if (!accept(reply)) throw new Error(`not within ${timeoutMs} ms: ${reply.describe()}`);
  return reply;
}

function expectTextLine(reply: HttpReply, status: number, line: string): void {
  expect(reply.status).toBe(status);
  expect(reply.contentType).toMatch(/^text\/plain\b/);
  expect(reply.text.trimEnd()).toBe(line);
}

describe('maintenance mode and IP blocks', () => {
  let rt: Runtime;
  let admin: string;
  let readOnlyAdmin: Session;
  let c: CustomerFixture;
  let blocked: string[] = [];

  const setMaintenance = async (body: Record<string, unknown>) => rt.http.put('/admin/settings/maintenance', { auth: admin, json: body });
  const block = (body: Record<string, unknown>) => rt.http.post('/admin/ip-blocks', { auth: admin, json: body });
  const listBlocks = async (all?: boolean) =>
    expectStatus(await rt.http.get('/admin/ip-blocks', { auth: admin, query: all === undefined ? {} : { all } }), 200).json<{ items: IpBlockBody[] }>().items;
  const logName = () => randomBytes(64).toString('hex');

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    c = await rt.newCustomer();
    readOnlyAdmin = await readOnlyAdministrator(rt, admin);
  });
  afterEach(async () => {
    expectStatus(await setMaintenance({ enabled: false }), 200);
    for (const cidr of blocked) await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr } });
    blocked = [];
  });
  afterAll(async () => {
    await rt?.stop();
  });

  describe('maintenance mode', () => {
    it('refuses writes with 503, Retry-After 300 and the message, in the endpoint error mode; reads, downloads, the update check and login keep working', async () => {
      const kept = logName();
      expectStatus(await rt.http.put(`/logdata/${kept}`, { auth: c.uploader, body: 'before maintenance' }), 200);
      expect(expectStatus(await rt.http.get('/admin/settings/maintenance', { auth: admin }), 200).json()).toEqual({ enabled: false, message: DEFAULT_MESSAGE });

      const message = `back at noon ${randomInt(1e6)}`;
      expect(expectStatus(await setMaintenance({ enabled: true, message }), 200).json()).toEqual({ enabled: true, message });
      expect(expectStatus(await rt.http.get('/admin/settings/maintenance', { auth: readOnlyAdmin }), 200).json()).toEqual({ enabled: true, message });

      // A JSON endpoint: problem+json.
      const write = await until(
        () => rt.http.post('/devices', { auth: c.full, json: { hwid: `m-${randomInt(1e9)}` } }),
        (r) => r.status === 503,
      );
      expectProblem(write, 503, message);
      expect(write.header('retry-after')).toBe('300');
      // A text endpoint (log upload): one text line; JSON when asked for.
      const text = await rt.http.put(`/logdata/${logName()}`, { auth: c.uploader, body: 'during maintenance' });
      expectTextLine(text, 503, `503 Service Unavailable: ${message}`);
      expect(text.header('retry-after')).toBe('300');
      expectProblem(await rt.http.put(`/logdata/${logName()}`, { auth: c.uploader, body: 'x', acceptJson: true }), 503, message);
      expectProblem(await rt.http.delete(`/tokens/${c.tokens.full.id}`, { auth: c.full }), 503, message);

      // Reads, downloads, the update check, login and the status page.
      expectStatus(await rt.http.get('/devices', { auth: c.full }), 200);
      const redirect = expectStatus(await rt.http.get(`/logdata/${kept}`, { auth: c.readOnly }), 302);
      const file = expectStatus((await rt.http.follow(redirect.header('location')!)).reply, 200);
      expect(file.text).toBe('before maintenance');
      expectStatus(await rt.http.get(updateCheckPath(c.domain, productLine(), '1.0.0'), { localAddress: ownAddress() }), 200);
      expect(await requestCode(rt, c.ownerEmail)).toMatch(/^\d{6}$/);
      const status = expectStatus(await rt.http.get('/status'), 200).json<{ maintenance: unknown }>();
      expect(status.maintenance).toEqual({ enabled: true, message });

      // The operator can still block an address and end maintenance.
      const address = ownAddress();
      blocked.push(address);
      expectStatus(await block({ cidr: address }), 201);
      expectStatus(await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr: address } }), 204);
      expect(expectStatus(await setMaintenance({ enabled: false }), 200).json()).toEqual({ enabled: false, message: DEFAULT_MESSAGE });
      await until(
        () => rt.http.post('/devices', { auth: c.full, json: { hwid: `m-${randomInt(1e9)}` } }),
        (r) => r.status === 201,
      );
      expect(expectStatus(await rt.http.get('/status'), 200).json<{ maintenance: unknown }>().maintenance).toEqual({
        enabled: false,
        message: DEFAULT_MESSAGE,
      });

      const on = await waitForAudit(rt, undefined, (e: AuditBody) => e.action === 'maintenance.update' && e.after.message === message);
      expect(on).toMatchObject({
        ts: expect.stringMatching(RFC3339),
        domain: null,
        actor: expect.stringMatching(/^admin:(token|user):/),
        target_type: 'maintenance',
        before: { enabled: false },
        after: { enabled: true, message },
      });
    });

    it('is in force for the very next request through the same gateway, on and off again', async () => {
      const write = () => rt.http.post('/devices', { auth: c.full, json: { hwid: `n-${randomInt(1e9)}` } });
      for (let round = 0; round < 3; round++) {
        const message = `round ${round} ${randomInt(1e6)}`;
        expectStatus(await setMaintenance({ enabled: true, message }), 200);
        expectProblem(await write(), 503, message);
        expectStatus(await setMaintenance({ enabled: false }), 200);
        expectStatus(await write(), 201);
      }
    });

    it('uses the default message when none is given, and refuses bad input and non-administrators', async () => {
      expect(expectStatus(await setMaintenance({ enabled: true }), 200).json()).toEqual({ enabled: true, message: DEFAULT_MESSAGE });
      const write = await until(
        () => rt.http.post('/devices', { auth: c.full, json: { hwid: `d-${randomInt(1e9)}` } }),
        (r) => r.status === 503,
      );
      expectProblem(write, 503, DEFAULT_MESSAGE);
      expectProblem(await setMaintenance({ message: 'no flag' }), 400);
      expectProblem(await setMaintenance({ enabled: 'yes' }), 400, 'enabled must be true or false');
      expectProblem(await setMaintenance({ enabled: true, message: 'x'.repeat(501) }), 400, 'message must be at most 500 characters');
      expectProblem(await rt.http.put('/admin/settings/maintenance', { auth: readOnlyAdmin, json: { enabled: false } }), 403);
      expectProblem(await rt.http.get('/admin/settings/maintenance', { auth: c.full }), 403);
      expectProblem(await rt.http.get('/admin/settings/maintenance'), 401);
    });
  });

  describe('IP blocks', () => {
    it('a blocked address gets 403 on every endpoint, public ones included; other addresses do not; removing the block lets it in again', async () => {
      const address = ownAddress();
      blocked.push(address);
      const reason = `abuse ${randomInt(1e6)}`;
      expect(expectStatus(await block({ cidr: address, reason }), 201).json()).toEqual({ cidr: `${address}/32`, expires_at: null, reason });
      const from = { localAddress: address };
      const health = await until(
        () => rt.http.get('/status', from),
        (r) => r.status === 403,
      );
      expectProblem(health, 403, 'address blocked');
      expect((await rt.http.get('/health', from)).status).toBe(403);
      expect((await rt.http.get('/openapi.json', from)).status).toBe(403);
      expectTextLine(await rt.http.get(updateCheckPath(c.domain, productLine(), '1.0.0'), from), 403, '403 Forbidden: address blocked');
      expect((await rt.http.get(`/dl/${'a'.repeat(40)}`, from)).status).toBe(403);
      expectProblem(await rt.http.post('/auth/login', { ...from, json: { email: c.ownerEmail } }), 403, 'address blocked');
      expectProblem(await rt.http.get('/devices', { ...from, auth: c.full }), 403, 'address blocked');
      expectProblem(await rt.http.get('/no/such/endpoint', from), 403, 'address blocked');
      // A CORS preflight too (it comes before any route).
      expectProblem(
        await rt.http.request('OPTIONS', '/devices', { ...from, headers: { origin: 'https://console.example', 'access-control-request-method': 'GET' } }),
        403,
        'address blocked',
      );
      // Another address is not affected.
      expectStatus(await rt.http.get('/status', { localAddress: '127.0.0.3' }), 200);

      const listed = (await listBlocks()).find((b) => b.cidr === `${address}/32`);
      expect(listed).toEqual({
        cidr: `${address}/32`,
        reason,
        created_by: expect.stringMatching(/^(token|user):/),
        created_at: expect.stringMatching(RFC3339),
        expires_at: null,
      });
      // The same network again replaces its block.
      expectStatus(await block({ cidr: `${address}/32`, reason: 'second' }), 201);
      expect((await listBlocks()).filter((b) => b.cidr === `${address}/32`).map((b) => b.reason)).toEqual(['second']);

      // DELETE normalises like POST (an IPv4-mapped form names the same block).
      expectStatus(await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr: `::ffff:${address}` } }), 204);
      expectProblem(await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr: address } }), 404, { code: 'ip_block_not_found' });
      await until(
        () => rt.http.get('/status', from),
        (r) => r.status === 200,
      );

      const created = await waitForAudit(rt, undefined, (e) => e.action === 'ip_block.create' && e.target_id === `${address}/32` && e.after.reason === reason);
      expect(created).toMatchObject({ actor: expect.stringMatching(/^admin:/), target_type: 'ip_block', before: {}, after: { cidr: `${address}/32`, reason } });
      const replaced = await waitForAudit(
        rt,
        undefined,
        (e) => e.action === 'ip_block.create' && e.target_id === `${address}/32` && e.after.reason === 'second',
      );
      expect(replaced.before).toMatchObject({ reason });
      const deleted = await waitForAudit(rt, undefined, (e) => e.action === 'ip_block.delete' && e.target_id === `${address}/32`);
      expect(deleted).toMatchObject({ before: { cidr: `${address}/32`, reason: 'second' }, after: {} });
    });

    it('a block and its removal are in force for the very next request through the same gateway', async () => {
      for (let round = 0; round < 3; round++) {
        const address = ownAddress();
        blocked.push(address);
        const from = { localAddress: address };
        expectStatus(await rt.http.get('/status', from), 200);
        expectStatus(await block({ cidr: address, reason: `at once ${round}` }), 201);
        expectProblem(await rt.http.get('/status', from), 403, 'address blocked');
        expectStatus(await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr: address } }), 204);
        expectStatus(await rt.http.get('/status', from), 200);
      }
    });

    it("refuses a block of the caller's own address with 409 unless confirmed; confirmed, the caller is locked out at once", async () => {
      const address = ownAddress();
      const from = { localAddress: address };
      const refused = await rt.http.post('/admin/ip-blocks', { ...from, auth: admin, json: { cidr: address, reason: 'myself' } });
      expectProblem(
        refused,
        409,
        `${address}/32 covers your own address ${address}: every request from it would get 403 address blocked. To block it anyway, send confirm_own_address: true`,
      );
      // A network around it, from the tests' usual address (127.0.0.1) too: refused, nothing stored.
      expectProblem(await rt.http.post('/admin/ip-blocks', { auth: admin, json: { cidr: '127.0.0.0/8' } }), 409, {
        detail: /^127\.0\.0\.0\/8 covers your own address /,
        code: 'ip_block_own_address',
      });
      expectProblem(await rt.http.post('/admin/ip-blocks', { ...from, auth: admin, json: { cidr: address, confirm_own_address: false } }), 409);
      expectProblem(
        await rt.http.post('/admin/ip-blocks', { ...from, auth: admin, json: { cidr: address, confirm_own_address: 'yes' } }),
        400,
        'confirm_own_address must be true or false',
      );
      expect((await listBlocks()).some((b) => b.cidr === `${address}/32` || b.cidr === '127.0.0.0/8')).toBe(false);
      expectStatus(await rt.http.get('/status', from), 200);

      blocked.push(address);
      expect(
        expectStatus(await rt.http.post('/admin/ip-blocks', { ...from, auth: admin, json: { cidr: address, confirm_own_address: true } }), 201).json(),
      ).toEqual({
        cidr: `${address}/32`,
        expires_at: null,
        reason: null,
      });
      expectProblem(await rt.http.get('/admin/ip-blocks', { ...from, auth: admin }), 403, 'address blocked');
      // A browser asking for a page gets a page that says so, not problem+json.
      const page = await rt.http.get('/console/admin/ip-blocks', { ...from, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(page.status).toBe(403);
      expect(page.contentType).toMatch(/^text\/html\b/);
      expect(page.header('content-security-policy')).toContain("default-src 'none'");
      expect(page.text).toContain('<h1>Your address is blocked</h1>');
      expect(page.text).toContain('403 Forbidden: address blocked');
      expectProblem(await rt.http.get('/console/admin/ip-blocks', from), 403, 'address blocked');
      // Removed from another address: in force at once again.
      expectStatus(await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr: address } }), 204);
      expectStatus(await rt.http.get('/admin/ip-blocks', { ...from, auth: admin }), 200);
    });

    it('normalises networks to their network address and IPv4-mapped IPv6 to IPv4; both match the client address', async () => {
      const lower = ownAddress(true);
      const upper = lower.replace(/\d+$/, (n) => String(Number(n) + 1));
      blocked.push(`${lower}/31`);
      expect(expectStatus(await block({ cidr: `${upper}/31` }), 201).json()).toMatchObject({ cidr: `${lower}/31` });
      await until(
        () => rt.http.get('/status', { localAddress: upper }),
        (r) => r.status === 403,
      );
      expect((await rt.http.get('/status', { localAddress: lower })).status).toBe(403);

      const mapped = ownAddress();
      blocked.push(mapped);
      expect(expectStatus(await block({ cidr: `::ffff:${mapped}` }), 201).json()).toMatchObject({ cidr: `${mapped}/32` });
      await until(
        () => rt.http.get('/status', { localAddress: mapped }),
        (r) => r.status === 403,
      );
      expect(expectStatus(await block({ cidr: '2001:DB8:0:0:1::7/64' }), 201).json()).toMatchObject({ cidr: '2001:db8::/64' });
      blocked.push('2001:db8::/64');
    });

    it('ttl_seconds sets expires_at; an expired block stops matching and is listed only with all=true', async () => {
      const address = ownAddress();
      blocked.push(address);
      const before = Date.now();
      const created = expectStatus(await block({ cidr: address, ttl_seconds: 3 }), 201).json<{ expires_at: string }>();
      const expiresAt = Date.parse(created.expires_at);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 2_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_000 + 1_000);
      await until(
        () => rt.http.get('/status', { localAddress: address }),
        (r) => r.status === 403,
      );
      expect((await listBlocks()).some((b) => b.cidr === `${address}/32`)).toBe(true);
      await until(
        () => rt.http.get('/status', { localAddress: address }),
        (r) => r.status === 200,
        8_000,
      );
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 500);
      expect((await listBlocks()).some((b) => b.cidr === `${address}/32`)).toBe(false);
      expect((await listBlocks(false)).some((b) => b.cidr === `${address}/32`)).toBe(false);
      expect((await listBlocks(true)).find((b) => b.cidr === `${address}/32`)).toMatchObject({ expires_at: created.expires_at });
    });

    it('refuses invalid input with 400 and non-administrators with 403', async () => {
      expectProblem(await block({ cidr: 'nonsense' }), 400, { detail: /^cidr must be an IPv4 or IPv6 address or CIDR network/, code: 'ip_network_invalid' });
      expectProblem(await block({ cidr: '10.0.0.1/33' }), 400, 'cidr prefix length must be at most 32 for IPv4');
      expectProblem(await block({ cidr: '2001:db8::/129' }), 400, 'cidr prefix length must be at most 128 for IPv6');
      expectProblem(await block({ cidr: '10.0.0.1/x' }), 400, /^cidr prefix length must be a number/);
      expectProblem(await block({ cidr: '' }), 400);
      expectProblem(await block({}), 400);
      expectProblem(await block({ cidr: '10.0.0.1', ttl_seconds: 0 }), 400, 'ttl_seconds must be an integer from 1 to 31536000');
      expectProblem(await block({ cidr: '10.0.0.1', ttl_seconds: 31_536_001 }), 400, 'ttl_seconds must be an integer from 1 to 31536000');
      expectProblem(await block({ cidr: '10.0.0.1', ttl_seconds: 1.5 }), 400, 'ttl_seconds must be an integer from 1 to 31536000');
      expectProblem(await rt.http.delete('/admin/ip-blocks', { auth: admin }), 400);
      expectProblem(await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr: 'nonsense' } }), 400, /^cidr must be/);
      expectProblem(await rt.http.get('/admin/ip-blocks', { auth: admin, query: { all: 'maybe' } }), 400, 'all must be true or false');

      expectStatus(await rt.http.get('/admin/ip-blocks', { auth: readOnlyAdmin }), 200);
      expectProblem(await rt.http.post('/admin/ip-blocks', { auth: readOnlyAdmin, json: { cidr: '10.0.0.1' } }), 403);
      expectProblem(await rt.http.delete('/admin/ip-blocks', { auth: readOnlyAdmin, query: { cidr: '10.0.0.1' } }), 403);
      expectProblem(await rt.http.get('/admin/ip-blocks', { auth: c.full }), 403);
      expectProblem(await rt.http.post('/admin/ip-blocks', { json: { cidr: '10.0.0.1' } }), 401);
    });
  });
});
