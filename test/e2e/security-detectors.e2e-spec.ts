import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitForSecurityEvent, type SecurityEventBody } from './support/auth.js';
import { DETECTOR_COOLDOWN_SECONDS, UPDATE_CHECK_RATE_PER_MINUTE } from './support/constants.js';
import { eventually, randomDomain, randomLogName, sleep } from './support/factories.js';
import { createDevice, updateCheckPath } from './support/firmware.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/**
 * The security detectors (docs/api.md "Security events"): traffic sent over HTTP from a loopback
 * address of each test's own raises the event of its kind, with what was seen in `detail`.
 * Both runtimes run them every second with small thresholds (support/constants.ts DETECTOR_ENV).
 */

let rt: Runtime;
let c: CustomerFixture;
const line = { hw: 'DETECT-HW', rev: 'A', fw: 'DETECT-FW' };

/** Loopback addresses no other test of this file uses (127.0.1.x to 127.0.254.x: other files draw from 127.0.0.x). */
const used = new Set<string>();
function ownAddress(): string {
  for (;;) {
    const address = `127.0.${1 + (randomBytes(1)[0] % 254)}.${1 + (randomBytes(1)[0] % 254)}`;
    if (!used.has(address)) {
      used.add(address);
      return address;
    }
  }
}

async function eventsOf(kind: string, ip: string): Promise<SecurityEventBody[]> {
  const reply = await rt.http.get('/admin/security/events', { auth: await rt.adminToken(), query: { kind, limit: 1000 } });
  expect(reply.status).toBe(200);
  return reply.json<{ items: SecurityEventBody[] }>().items.filter((e) => e.ip === ip);
}

beforeAll(async () => {
  rt = await startRuntime();
  c = await rt.newCustomer();
});

afterAll(async () => {
  await rt?.stop();
});

describe('security detectors', () => {
  it('hwid_enumeration (critical): many distinct unknown HW ids from one address; known devices do not count; mailed once', async () => {
    const address = ownAddress();
    const known = `KNOWN-${randomBytes(4).toString('hex')}`;
    await createDevice(rt, c.full, known);
    const unknown = Array.from({ length: 40 }, (_, i) => `ENUM-${i}-${randomBytes(4).toString('hex')}`);
    for (const hwid of [known, ...unknown]) {
      const reply = await rt.http.get(updateCheckPath(c.domain, line, '1.0', hwid), { localAddress: address });
      expect(reply.status).toBe(200);
    }
    const event = await waitForSecurityEvent(rt, { kind: 'hwid_enumeration' }, (e) => e.ip === address, 30_000);
    expect(event).toMatchObject({ severity: 'critical', domain: c.domain, acked_at: null });
    expect(event.detail).toMatchObject({ address, threshold: 30, window_seconds: 60, domains: [c.domain] });
    // Counted when the episode opened (a run may fall in the middle of the stream); the known device, checked first, never counts.
    const count = event.detail.count as number;
    expect(count).toBeGreaterThanOrEqual(30);
    expect(count).toBeLessThanOrEqual(40);
    expect(event.detail).toMatchObject({ devices_checked: count + 1, requests: count + 1 });
    const examples = event.detail.examples as string[];
    expect(examples).toHaveLength(5);
    for (const hwid of examples) expect(unknown).toContain(hwid);
    // Critical: mailed to the operator's owners once, notified_at records it.
    const notified = await waitForSecurityEvent(rt, { kind: 'hwid_enumeration' }, (e) => e.id === event.id && e.notified_at !== null, 30_000);
    expect(Date.parse(notified.notified_at!)).toBeGreaterThanOrEqual(Date.parse(event.ts));
  });

  it(`rate_limited (warn): 429 answers to one address; one event while it goes on (cool-down ${DETECTOR_COOLDOWN_SECONDS} s)`, async () => {
    const address = ownAddress();
    const path = updateCheckPath(randomDomain(), line, '1.0');
    let limited = 0;
    for (let i = 0; i < UPDATE_CHECK_RATE_PER_MINUTE + 8; i++) {
      const reply = await rt.http.get(path, { localAddress: address });
      expect([404, 429]).toContain(reply.status);
      if (reply.status === 429) limited++;
    }
    expect(limited).toBeGreaterThanOrEqual(5);
    const event = await waitForSecurityEvent(rt, { kind: 'rate_limited' }, (e) => e.ip === address, 30_000);
    expect(event).toMatchObject({ severity: 'warn', notified_at: null });
    expect(event.detail).toMatchObject({ address, counted: '429 answers', threshold: 5, window_seconds: 60 });
    expect(event.detail.count).toBeGreaterThanOrEqual(5);
    expect(event.detail.examples).toEqual(['/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}']);
    // The attack goes on for a few more detection runs: still the one event.
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      expect((await rt.http.get(path, { localAddress: address })).status).toBe(429);
      // Paced: a flood here would be the traffic_spike test's baseline.
      await sleep(50);
    }
    await sleep(3_000);
    expect((await eventsOf('rate_limited', address)).map((e) => e.id)).toEqual([event.id]);
  });

  it('auth_failures (warn): 401 answers to one address', async () => {
    const address = ownAddress();
    for (let i = 0; i < 12; i++) {
      const reply = await rt.http.get('/firmware', { auth: `not-a-token-${i}`, localAddress: address });
      expect(reply.status).toBe(401);
    }
    const event = await waitForSecurityEvent(rt, { kind: 'auth_failures' }, (e) => e.ip === address, 30_000);
    expect(event).toMatchObject({ severity: 'warn', domain: null });
    // The detector runs every second over the request log, which the gateway delivers in
    // batches: it may count the address as soon as the threshold's 10 of the 12 answers are in.
    const { count, requests } = event.detail as { count: number; requests: number };
    expect(count).toBeGreaterThanOrEqual(10);
    expect(count).toBeLessThanOrEqual(12);
    expect(requests).toBe(count);
    expect(event.detail).toMatchObject({ address, counted: '401 answers', threshold: 10, window_seconds: 60, examples: ['/firmware'] });
  });

  it('logdata_scanning (warn): 404 on reads of distinct log-file names from one address', async () => {
    const address = ownAddress();
    const names = Array.from({ length: 6 }, () => randomLogName());
    for (const [i, name] of names.entries()) {
      // The same name again does not count twice (sent early: the detector may run as soon as
      // the threshold is crossed, before the last reads are stored).
      if (i === 1) expect((await rt.http.get(`/logdata/${names[0]}/meta`, { auth: c.readOnly, localAddress: address })).status).toBe(404);
      const reply =
        i % 3 === 0
          ? await rt.http.get(`/logdata/${name}`, { auth: c.readOnly, localAddress: address })
          : i % 3 === 1
            ? await rt.http.head(`/logdata/${name}`, { auth: c.readOnly, localAddress: address })
            : await rt.http.get(`/logdata/${name}/meta`, { auth: c.readOnly, localAddress: address });
      expect(reply.status).toBe(404);
    }
    const event = await waitForSecurityEvent(rt, { kind: 'logdata_scanning' }, (e) => e.ip === address, 30_000);
    expect(event).toMatchObject({ severity: 'warn', domain: c.domain });
    expect(event.detail).toMatchObject({ address, threshold: 5, window_seconds: 60, domains: [c.domain] });
    // Seen when the threshold was crossed: 5 or all 6 distinct names, the repeat counted once more as a request.
    const count = event.detail.count as number;
    expect([5, 6]).toContain(count);
    expect(event.detail.requests).toBe(count + 1);
    expect(event.detail.examples).toHaveLength(5);
    for (const example of event.detail.examples as string[]) expect(names).toContain(example);
  });

  it('tenant_probing (critical): one credential naming customers it may not act on (404 customer not found)', async () => {
    const address = ownAddress();
    const other = await rt.newCustomer({ tokens: false });
    for (const customer of [other.domain, `nobody-${randomBytes(4).toString('hex')}.test`]) {
      for (let i = 0; i < 3; i++) {
        const reply = await rt.http.get('/logdata', { auth: c.readOnly, query: { customer }, localAddress: address });
        expect(reply.status).toBe(404);
      }
    }
    // The credential's own customer named, and a 404 of another kind: neither counts.
    expect((await rt.http.get('/logdata', { auth: c.readOnly, query: { customer: c.domain }, localAddress: address })).status).toBe(200);
    expect((await rt.http.get(`/logdata/${randomLogName()}/meta`, { auth: c.readOnly, localAddress: address })).status).toBe(404);
    const event = await waitForSecurityEvent(rt, { kind: 'tenant_probing' }, (e) => e.ip === address, 30_000);
    expect(event).toMatchObject({ severity: 'critical', domain: c.domain });
    expect(event.detail).toMatchObject({
      credential: `token:${c.tokens['read-only'].id}`,
      addresses: [address],
      threshold: 5,
      window_seconds: 60,
      examples: ['/logdata'],
      domains: [c.domain],
    });
    expect(event.detail.count).toBeGreaterThanOrEqual(5);
    expect(event.detail.count).toBeLessThanOrEqual(6);
  });

  it('traffic_spike (warn): requests to the whole service far above the baseline and the floor', async () => {
    // Other tests' bursts (this file's 429s, say) may have opened an episode still going on: its
    // event is out, and a burst now would only continue it. Wait until it has been quiet for the cool-down.
    await eventually(
      async () =>
        rt.query<{ quiet: boolean }>(
          `SELECT last_seen_at < now() - make_interval(secs => $1) AS quiet FROM admin.detector_episode WHERE kind = 'traffic_spike'`,
          [DETECTOR_COOLDOWN_SECONDS + 1],
        ),
      (rows) => rows.every((r) => r.quiet),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    // At least 800 requests within a few seconds (floor 300 in 10 s), and well over twice the
    // average per 10 s of the 2 minutes before (what earlier tests sent), 40 from each address
    // (under the update-check limit).
    const [{ recent }] = await rt.query<{ recent: number }>(
      `SELECT count(*)::int AS recent FROM admin.request_log_entries WHERE ts > now() - interval '2 minutes'`,
    );
    const needed = Math.max(800, Math.ceil((recent / 12) * 2 * 1.5) + 300);
    const started = Date.now();
    const path = updateCheckPath(randomDomain(), line, '1.0');
    const addresses = Array.from({ length: Math.ceil(needed / 40) }, () => ownAddress());
    await Promise.all(
      addresses.map(async (address) => {
        for (let i = 0; i < 40; i++) expect((await rt.http.get(path, { localAddress: address })).status).toBe(404);
      }),
    );
    const burst = Date.now() - started;
    const event = await waitForSecurityEvent(rt, { kind: 'traffic_spike' }, (e) => Date.parse(e.ts) >= started, 30_000).catch(async (err: Error) => {
      // What the detector had to go on, in the failure message.
      const seen = await rt.query(
        `SELECT date_trunc('second', ts) - make_interval(secs => extract(second FROM ts)::int % 10) AS bucket, count(*)::int AS requests
           FROM admin.request_log_entries WHERE ts > now() - interval '4 minutes' GROUP BY 1 ORDER BY 1`,
      );
      const episodes = await rt.query(`SELECT * FROM admin.detector_episode WHERE kind = 'traffic_spike'`);
      throw new Error(
        `${err.message}; burst took ${burst} ms from ${new Date(started).toISOString()}; requests per 10 s: ${JSON.stringify(seen)}; episodes: ${JSON.stringify(episodes)}`,
      );
    });
    expect(event).toMatchObject({ severity: 'warn', ip: null, domain: null });
    expect(event.detail).toMatchObject({ threshold: 300, window_seconds: 10, baseline_seconds: 120, factor: 2 });
    expect(event.detail.count).toBeGreaterThanOrEqual(300);
    const top = event.detail.examples as Array<{ ip: string; requests: number }>;
    expect(top.length).toBeGreaterThan(0);
    // The busiest addresses: the burst's (each sent 40), besides this suite's own polling from 127.0.0.1.
    expect(top.some((t) => addresses.includes(t.ip))).toBe(true);
  });
});
