import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { IdentityMessages, RegistryMessages, type RequestLogEntry } from '@app/contracts';
import { closeDatabases, configureLogging, loadConfig, openAppDatabase, revertLastMigration, type ServiceConfig } from '@app/infra';
import { DataSource } from 'typeorm';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import { SecurityDetectors } from '../../apps/admin/src/detectors/security-detectors.service.js';
import { DetectSecurityEvents } from '../../apps/admin/src/use-cases/detect-security-events/detect-security-events.usecase.js';
import { RecordSecurityEvent } from '../../apps/admin/src/use-cases/record-security-event/record-security-event.usecase.js';
import { AdminStore } from '../../apps/admin/src/repositories/admin.store.js';
import type { RequestLogRepository } from '../../apps/admin/src/repositories/request-log.repository.js';
import { Clock } from '../../apps/admin/src/services/clock.js';
import { FakeBus } from '../../apps/identity/test/fakes.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';
import { compileAdminModule } from './admin.support.js';

configureLogging({ sink: () => undefined });

/**
 * The security detectors on real PostgreSQL: their queries over admin.request_log, the registry
 * asked about the HW ids, one event per episode, the claim shared by replicas, the migration's down.
 * The defaults of docs/configuration.md unless a test says otherwise.
 */

let now = new Date('2026-11-25T12:00:00.000Z');
let throwaway: Throwaway;
let dataSource: DataSource;
let moduleRef: TestingModule;
let detectors: SecurityDetectors;
let log: RequestLogRepository;
let bus: FakeBus;
let config: ServiceConfig;
/** Devices the fake registry knows, by customer id. */
const registry = new Map<string, Set<string>>([['c-acme', new Set(['KNOWN-1', 'KNOWN-2'])]]);
const DEVICE_ROUTE = '/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}/{hwid}';

beforeAll(async () => {
  throwaway = await createThrowaway('admin_detectors');
  dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  bus = new FakeBus();
  bus.respond(IdentityMessages.resolveCustomer, (lookup) =>
    'domain' in lookup && lookup.domain === 'acme.example' ? { id: 'c-acme', domain: 'acme.example', status: 'active' as const, isSandbox: false } : null,
  );
  bus.respond(RegistryMessages.lookupDevices, ({ customerId, hwids }) =>
    hwids.map((hwid) => (registry.get(customerId)?.has(hwid) ? { status: 'active' as const, tags: [] } : null)),
  );
  bus.respond(IdentityMessages.operatorEmails, () => ({ emails: ['root@operator.example'] }));
  config = { ...throwaway.config, publicUrl: 'https://fw.example.test' };
  moduleRef = await compileAdminModule({ dataSource, config, clock: { now: () => now }, bus, controllers: false });
  detectors = moduleRef.get(SecurityDetectors);
  log = moduleRef.get(AdminStore).repos.requestLog;
});

afterAll(async () => {
  await moduleRef?.close();
  await closeDatabases();
  await throwaway?.dispose();
});

beforeEach(async () => {
  await dataSource.query('TRUNCATE admin.request_log, admin.request_log_bulk, admin.security_event, admin.detector_episode');
});

let seq = 0;
function entry(at: Date, overrides: Partial<RequestLogEntry>): RequestLogEntry {
  return {
    ts: at.toISOString(),
    domain: null,
    actor: null,
    method: 'GET',
    route: '/firmware',
    path: '/firmware',
    status: 200,
    ip: '192.0.2.1',
    user_agent: 'test',
    bytes_in: 0,
    bytes_out: 0,
    duration_ms: 1,
    request_id: `r-${++seq}`,
    ...overrides,
  };
}

/** `n` entries spread evenly over `seconds` ending at `end`. */
function spread(n: number, end: Date, seconds: number, make: (i: number, at: Date) => Partial<RequestLogEntry>): RequestLogEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const at = new Date(end.getTime() - seconds * 1000 + ((i + 1) * seconds * 1000) / n);
    return entry(at, make(i, at));
  });
}

const events = async (kind?: string) =>
  (await dataSource.query(
    `SELECT id, kind, severity, ip, domain, detail, notified_at FROM admin.security_event ${kind ? 'WHERE kind = $1' : ''} ORDER BY id`,
    kind ? [kind] : [],
  )) as Array<{
    id: string;
    kind: string;
    severity: string;
    ip: string | null;
    domain: string | null;
    detail: Record<string, unknown>;
    notified_at: Date | null;
  }>;

const at = (secondsFromStart: number) => new Date(Date.parse('2026-11-25T12:00:00.000Z') + secondsFromStart * 1000);
const deviceCheck = (hwid: string, domain = 'acme.example') => ({
  route: DEVICE_ROUTE,
  path: `/firmware/${domain}/HW/A/FW/1.0/${encodeURIComponent(hwid)}`,
  domain,
});

describe('hwid_enumeration (defaults: 100 distinct unknown in 5 minutes, critical)', () => {
  it('200 distinct unknown HW ids from one address within one minute raise it once, mailed; known devices and other addresses do not count', async () => {
    await log.insertBatch(spread(200, at(60), 60, (i) => ({ ...deviceCheck(`ATTACK-${i}`), ip: '203.0.113.5' })));
    // 99 unknown and two known from another address: under the threshold; known ones never count.
    await log.insertBatch(spread(101, at(60), 60, (i) => ({ ...deviceCheck(i < 2 ? `KNOWN-${i + 1}` : `OTHER-${i}`), ip: '203.0.113.6' })));
    // Refused input (400) does not count.
    await log.insertBatch(spread(150, at(60), 60, (i) => ({ ...deviceCheck(`BAD-${i}`), ip: '203.0.113.7', status: 400 })));
    now = at(65);
    const opened = await detectors.run();
    expect(opened.map((f) => [f.kind, f.key])).toEqual([['hwid_enumeration', '203.0.113.5']]);
    const [event] = await events('hwid_enumeration');
    expect(event).toMatchObject({ severity: 'critical', ip: '203.0.113.5', domain: 'acme.example' });
    expect(event.notified_at).not.toBeNull();
    expect(event.detail).toMatchObject({ address: '203.0.113.5', count: 200, devices_checked: 200, requests: 200, threshold: 100, window_seconds: 300 });
    expect(event.detail.examples).toEqual(['ATTACK-0', 'ATTACK-1', 'ATTACK-10', 'ATTACK-100', 'ATTACK-101']);

    // The attack goes on: the same episode, no new event.
    await log.insertBatch(spread(200, at(120), 55, (i) => ({ ...deviceCheck(`MORE-${i}`), ip: '203.0.113.5' })));
    for (const t of [75, 85, 125, 300]) {
      now = at(t);
      expect(await detectors.run()).toEqual([]);
    }
    expect(await events('hwid_enumeration')).toHaveLength(1);
  });

  it('HW ids of a domain no customer has are all unknown; URL-encoded ids are decoded', async () => {
    await log.insertBatch(spread(100, at(30), 30, (i) => ({ ...deviceCheck(`odd id/${i}`, 'nobody.example'), ip: '203.0.113.9', status: 404 })));
    now = at(31);
    await detectors.run();
    const [event] = await events('hwid_enumeration');
    expect(event.detail).toMatchObject({ count: 100, domains: ['nobody.example'] });
    expect((event.detail.examples as string[])[0]).toBe('odd id/0');
  });
});

describe('episodes', () => {
  it('a new event only after the cool-down of quiet (default 900 s)', async () => {
    await log.insertBatch(spread(60, at(10), 10, () => ({ status: 429, ip: '198.51.100.1', route: '/auth/login', path: '/auth/login' })));
    now = at(11);
    expect((await detectors.run()).map((f) => f.kind)).toEqual(['rate_limited']);
    // Still over the threshold while the window holds the burst (300 s): the same episode.
    now = at(305);
    expect(await detectors.run()).toEqual([]);
    // Below it from 310 s on; a new burst 600 s later (under the cool-down after 305 s): still the same episode.
    await log.insertBatch(spread(60, at(900), 10, () => ({ status: 429, ip: '198.51.100.1', route: '/auth/login', path: '/auth/login' })));
    now = at(901);
    expect(await detectors.run()).toEqual([]);
    // Quiet from 1195 s on (the window passed the burst); a burst after 900 s of quiet: a new episode, a new event.
    await log.insertBatch(spread(60, at(2200), 10, () => ({ status: 429, ip: '198.51.100.1', route: '/auth/login', path: '/auth/login' })));
    now = at(1200);
    expect(await detectors.run()).toEqual([]);
    now = at(2201);
    expect((await detectors.run()).map((f) => f.kind)).toEqual(['rate_limited']);
    expect(await events('rate_limited')).toHaveLength(2);
  });

  it('replicas finding the same thing at once raise one event', async () => {
    const repository = moduleRef.get(AdminStore);
    const claims = await Promise.all(Array.from({ length: 8 }, () => repository.repos.detectors.sighted('auth_failures', '198.51.100.2', at(0), 900_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    // Two runs of the job at once (two replicas): one event.
    await log.insertBatch(spread(30, at(10), 10, () => ({ status: 401, ip: '198.51.100.3' })));
    now = at(11);
    const other = new DetectSecurityEvents(repository, moduleRef.get(RecordSecurityEvent), bus, { now: () => now } as Clock, config);
    await Promise.all([detectors.run(), other.execute()]);
    expect(await events('auth_failures')).toHaveLength(1);
  });
});

describe('the other detectors (defaults)', () => {
  it('auth_failures counts 401s per address; logdata_scanning distinct names answered 404 on log-file reads', async () => {
    await log.insertBatch(spread(20, at(100), 100, (i) => ({ status: 401, ip: '198.51.100.4', route: i % 2 ? '/firmware' : '/devices' })));
    await log.insertBatch(spread(19, at(100), 100, () => ({ status: 401, ip: '198.51.100.5' })));
    const name = (i: number) => i.toString(16).padStart(128, 'a');
    await log.insertBatch(
      spread(25, at(100), 100, (i) => ({
        status: 404,
        ip: '198.51.100.6',
        domain: 'acme.example',
        method: i % 3 === 1 ? 'HEAD' : 'GET',
        route: i % 3 === 2 ? '/logdata/{name}/meta' : '/logdata/{name}',
        path: i % 3 === 2 ? `/logdata/${name(i % 20)}/meta` : `/logdata/${name(i % 20)}`,
      })),
    );
    // 404s of other routes, and PUTs, are no scanning.
    await log.insertBatch(spread(30, at(100), 100, (i) => ({ status: 404, ip: '198.51.100.7', route: '/firmware/{id}', path: `/firmware/${i}` })));
    now = at(101);
    const opened = await detectors.run();
    expect(opened.map((f) => [f.kind, f.key]).sort()).toEqual([
      ['auth_failures', '198.51.100.4'],
      ['logdata_scanning', '198.51.100.6'],
    ]);
    const [auth] = await events('auth_failures');
    expect(auth).toMatchObject({ severity: 'warn', ip: '198.51.100.4', domain: null });
    expect(auth.detail).toMatchObject({ count: 20, threshold: 20, window_seconds: 300, examples: ['/devices', '/firmware'] });
    const [scan] = await events('logdata_scanning');
    expect(scan).toMatchObject({ severity: 'warn', domain: 'acme.example' });
    expect(scan.detail).toMatchObject({ count: 20, requests: 25, threshold: 20 });
    expect(scan.detail.examples).toEqual(
      Array.from({ length: 20 }, (_, i) => name(i))
        .sort()
        .slice(0, 5),
    );
  });

  it('tenant_probing counts the refusals customer not found of one credential, whatever its addresses', async () => {
    const refused = { status: 404, route: '/logdata', path: '/logdata', domain: 'acme.example', refusal: 'customer_not_found' };
    await log.insertBatch(spread(6, at(50), 50, () => ({ ...refused, actor: 'token:t-9', ip: '198.51.100.20' })));
    await log.insertBatch(spread(4, at(50), 50, () => ({ ...refused, actor: 'token:t-9', ip: '198.51.100.21', route: '/devices', path: '/devices' })));
    // Other 404s of the same credential, and 9 refusals of another one: nothing.
    await log.insertBatch(spread(20, at(50), 50, () => ({ ...refused, refusal: undefined, actor: 'token:t-9', ip: '198.51.100.20' })));
    await log.insertBatch(spread(9, at(50), 50, () => ({ ...refused, actor: 'user:u-1', ip: '198.51.100.22' })));
    now = at(51);
    expect((await detectors.run()).map((f) => [f.kind, f.key])).toEqual([['tenant_probing', 'token:t-9']]);
    const [event] = await events('tenant_probing');
    expect(event).toMatchObject({ severity: 'critical', ip: null, domain: 'acme.example' });
    expect(event.notified_at).not.toBeNull();
    expect(event.detail).toMatchObject({
      credential: 'token:t-9',
      addresses: ['198.51.100.20', '198.51.100.21'],
      count: 10,
      threshold: 10,
      examples: ['/devices', '/logdata'],
    });
  });

  it('traffic_spike: 5 times the baseline and the floor (3000 a minute)', async () => {
    // A baseline of 100 requests a minute for 30 minutes, then 2999 in one minute: under the floor.
    await log.insertBatch(spread(3000, at(1800), 1800, () => ({})));
    await log.insertBatch(spread(2999, at(1860), 60, (i) => ({ ip: `192.0.2.${(i % 3) + 10}` })));
    now = at(1860);
    expect(await detectors.run()).toEqual([]);
    await log.insertBatch([entry(at(1860), { ip: '192.0.2.10' })]);
    expect((await detectors.run()).map((f) => f.kind)).toEqual(['traffic_spike']);
    const [event] = await events('traffic_spike');
    expect(event).toMatchObject({ severity: 'warn', ip: null, domain: null });
    expect(event.detail).toMatchObject({ count: 3000, baseline_per_window: 100, factor: 5, threshold: 3000, window_seconds: 60, baseline_seconds: 1800 });
    expect(event.detail.examples).toEqual([
      { ip: '192.0.2.10', requests: 1001 },
      { ip: '192.0.2.11', requests: 1000 },
      { ip: '192.0.2.12', requests: 999 },
    ]);
  });

  it('the refusal detectors read the partial status index', async () => {
    const plan = await dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      return (await manager.query(
        `EXPLAIN SELECT ip FROM admin.request_log WHERE status = 429 AND ts > now() - interval '5 minutes' AND ts <= now()`,
      )) as Array<{ 'QUERY PLAN': string }>;
    });
    // The log is partitioned by day: each partition scans its own copy of the partitioned index.
    const used = [
      ...plan
        .map((r) => r['QUERY PLAN'])
        .join('\n')
        .matchAll(/Index (?:Only )?Scan using (\w+)/g),
    ].map((m) => m[1]);
    expect(used.length).toBeGreaterThan(0);
    const parents = (await dataSource.query(
      `SELECT DISTINCT p.relname AS parent FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
        WHERE c.relname = ANY($1)`,
      [used],
    )) as Array<{ parent: string }>;
    expect(parents).toEqual([{ parent: 'request_log_status_ts_idx' }]);
  });
});

describe('settings', () => {
  it('a detector switched off raises nothing', async () => {
    const off = loadConfig({ DATA_DIR: throwaway.config.dataDir, SECURITY_DETECTOR_AUTH_FAILURES: 'off' }).securityDetectors;
    const quiet = new DetectSecurityEvents(moduleRef.get(AdminStore), moduleRef.get(RecordSecurityEvent), bus, { now: () => now } as Clock, {
      ...config,
      securityDetectors: off,
    });
    await log.insertBatch(spread(50, at(10), 10, () => ({ status: 401, ip: '198.51.100.8' })));
    now = at(11);
    expect(await quiet.execute()).toEqual([]);
  });
});

describe('migration', () => {
  it('reverts cleanly (down) — runs last', async () => {
    await moduleRef.close();
    await closeDatabases();
    // The migrations after this one first (their own medium tests check what their downs do).
    const later = ADMIN_DATABASE.migrations.slice(ADMIN_DATABASE.migrations.findIndex((m) => m.name === 'DetectorEpisodes1764350000000') + 1);
    for (const migration of later.reverse()) expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe(migration.name);
    expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe('DetectorEpisodes1764350000000');
    const check = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
    try {
      const [row] = (await check.query(
        `SELECT to_regclass('admin.detector_episode')::text AS episodes, to_regclass('admin.request_log_refusal_ts_idx')::text AS idx, to_regclass('admin.request_log')::text AS log,
                (SELECT count(*)::int FROM information_schema.columns WHERE table_schema = 'admin' AND table_name = 'request_log' AND column_name = 'refusal') AS refusal`,
      )) as [Record<string, string | null>];
      expect(row).toEqual({ episodes: null, idx: null, log: 'admin.request_log', refusal: 0 });
    } finally {
      await check.destroy();
    }
  });
});
