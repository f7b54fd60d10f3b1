import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { asCustomerId, type CustomerRef, type DeviceAudienceRequest, type DeviceSeen, ErrorCode } from '@app/contracts';
import { closeDatabases, configureLogging, FilesystemObjectStore, openAppDatabase, revertLastMigration } from '@app/infra';
import { makeCall, makeCustomer } from '@app/testing';
import { DataSource } from 'typeorm';
import { versionKey } from '../../apps/firmware/src/domain/version-order.js';
import type { DevicesController } from '../../apps/registry/src/controllers/devices.controller.js';
import type { RegistryController } from '../../apps/registry/src/controllers/registry.controller.js';
import { REGISTRY_DATABASE } from '../../apps/registry/src/registry.module.js';
import { DeviceRolloutRepository } from '../../apps/registry/src/repositories/device-rollout.repository.js';
import { makeDeviceContext, makeDeviceToken } from '../../apps/registry/test/factories.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';
import { codeOf, RecordingBus, registryModule } from './registry.support.js';

configureLogging({ sink: () => undefined });
// Seeding 200,000 devices and vacuuming them takes seconds on a busy machine.
jest.setTimeout(180_000);

let throwaway: Throwaway;
let dataSource: DataSource;
let moduleRef: TestingModule;
let devices: DevicesController;
let registry: RegistryController;

beforeAll(async () => {
  throwaway = await createThrowaway('rollouts');
  dataSource = await openAppDatabase(throwaway.config, REGISTRY_DATABASE);
  ({ moduleRef, devices, registry } = await registryModule(
    throwaway.config,
    dataSource,
    new FilesystemObjectStore(join(throwaway.dataDir, 'objects')),
    new RecordingBus(),
  ));
});

afterAll(async () => {
  await moduleRef?.close();
  await closeDatabases();
  await throwaway?.dispose();
});

const LINE: { readonly hwName: string; readonly hwVersion: string; readonly fwName: string } = { hwName: 'board', hwVersion: 'rev1', fwName: 'main' };
const hex = (version: string) => versionKey(version).toString('hex');

const create = (customer: CustomerRef, hwid: string, tags: string[] = []) =>
  devices.create(makeCall(makeDeviceContext(customer), { body: { hwid, tags } as never }));

function seen(customer: CustomerRef, hwid: string, fwVersion: string, at: Date, line: Partial<typeof LINE> | null = LINE): DeviceSeen {
  const base = { customerId: customer.id, hwid, fwVersion, at: at.toISOString() };
  return line ? { ...base, ...LINE, ...line, versionKey: hex(fwVersion) } : base;
}

function audienceOf(customer: CustomerRef, version: string, tags: string[] | null, page: { limit?: number; offset?: number } = {}) {
  const request: DeviceAudienceRequest = {
    customerId: customer.id,
    tags,
    ...LINE,
    versionKey: hex(version),
    limit: page.limit ?? 100,
    offset: page.offset ?? 0,
  };
  return registry.audience(request);
}

const summary = (customer: CustomerRef, query: Record<string, unknown> = {}) =>
  devices.summary(makeCall(makeDeviceContext(customer), { query: query as never }));

describe('sightings with the product line', () => {
  it("records the line and version key of a device's latest check; a sighting without them clears them; the profile shows them", async () => {
    const customer = makeCustomer();
    await create(customer, 'p1', ['beta']);
    const at = new Date('2026-11-26T10:00:00Z');
    await registry.devicesSeen({ items: [seen(customer, 'p1', '1.2', at)] });
    expect(await registry.deviceProfile({ customerId: customer.id, hwid: 'p1' })).toEqual({
      status: 'active',
      tags: ['beta'],
      lastSeen: { at: at.toISOString(), fwVersion: '1.2', hwName: 'board', hwVersion: 'rev1', fwName: 'main' },
    });
    const [row] = await dataSource.query(`SELECT last_version_key FROM registry.device WHERE customer_id = $1 AND hwid = 'p1'`, [customer.id]);
    expect(Buffer.compare(row.last_version_key as Buffer, versionKey('1.2'))).toBe(0);
    // A line with a name outside the rule, or an older sender's sighting, records the version only.
    await registry.devicesSeen({ items: [{ ...seen(customer, 'p1', '1.3', new Date(at.getTime() + 1000)), hwName: 'a b' }] });
    expect((await registry.deviceProfile({ customerId: customer.id, hwid: 'p1' }))!.lastSeen).toMatchObject({ fwVersion: '1.3', hwName: null });
    expect(await registry.deviceProfile({ customerId: customer.id, hwid: 'nobody' })).toBeNull();
    expect(await registry.deviceProfile({ customerId: makeCustomer().id, hwid: 'p1' })).toBeNull();
  });
});

describe('audience', () => {
  const customer = makeCustomer();
  const neighbour = makeCustomer();
  const at = new Date('2026-11-26T12:00:00Z');

  beforeAll(async () => {
    for (const [hwid, tags] of [
      ['a-old', ['beta']],
      ['b-old', []],
      ['c-rc', ['lab']],
      ['d-same', ['beta']],
      ['e-newer', ['beta']],
      ['f-other-line', ['beta']],
      ['g-withdrawn', ['beta']],
      ['h-never', ['beta']],
      ['i-never', []],
    ] as const)
      await create(customer, hwid, [...tags]);
    await create(neighbour, 'a-old', ['beta']);
    await registry.devicesSeen({
      items: [
        seen(customer, 'a-old', '1.0', at),
        seen(customer, 'b-old', '1.9.9', at),
        seen(customer, 'c-rc', '2.0-rc1', at),
        seen(customer, 'd-same', '2.0', at),
        seen(customer, 'e-newer', '2.0.1', at),
        seen(customer, 'f-other-line', '1.0', at, { hwVersion: 'rev2' }),
        seen(customer, 'g-withdrawn', '1.0', at),
        seen(neighbour, 'a-old', '1.0', at),
      ],
    });
    await devices.withdraw(makeCall(makeDeviceContext(customer), { params: { hwid: 'g-withdrawn' } }));
    await devices.withdraw(makeCall(makeDeviceContext(customer), { params: { hwid: 'i-never' } }));
  });

  it('known devices: active ones on the line with an older version (version order, not text order), and those that never checked in', async () => {
    const found = await audienceOf(customer, '2.0', null);
    expect(found).toEqual({
      devices: 3,
      neverCheckedIn: 1,
      items: [
        { hwid: 'a-old', lastFwVersion: '1.0', lastSeenAt: at.toISOString() },
        { hwid: 'b-old', lastFwVersion: '1.9.9', lastSeenAt: at.toISOString() },
        { hwid: 'c-rc', lastFwVersion: '2.0-rc1', lastSeenAt: at.toISOString() },
      ],
    });
  });

  it('devices sharing a tag: only those carrying one of the tags', async () => {
    expect(await audienceOf(customer, '2.0', ['beta'])).toMatchObject({ devices: 1, neverCheckedIn: 1, items: [{ hwid: 'a-old' }] });
    expect((await audienceOf(customer, '2.0', ['beta', 'lab'])).items.map((d) => d.hwid)).toEqual(['a-old', 'c-rc']);
    expect(await audienceOf(customer, '2.0', ['nobody-has-it'])).toEqual({ devices: 0, neverCheckedIn: 0, items: [] });
  });

  it('pages by HW id with limit and offset', async () => {
    expect((await audienceOf(customer, '9', null, { limit: 2 })).items.map((d) => d.hwid)).toEqual(['a-old', 'b-old']);
    const second = await audienceOf(customer, '9', null, { limit: 2, offset: 2 });
    expect(second.devices).toBe(5);
    expect(second.items.map((d) => d.hwid)).toEqual(['c-rc', 'd-same']);
  });

  it("never counts another customer's devices, and refuses a malformed request", async () => {
    expect(await audienceOf(neighbour, '2.0', null)).toMatchObject({ devices: 1, neverCheckedIn: 0 });
    expect(await codeOf(registry.audience({ customerId: customer.id, tags: null, ...LINE, versionKey: 'zz', limit: 1, offset: 0 }))).toBe(ErrorCode.BadRequest);
    expect(await codeOf(registry.audience({ customerId: customer.id, tags: null, ...LINE, versionKey: '00', limit: 501, offset: 0 }))).toBe(
      ErrorCode.BadRequest,
    );
    expect(await codeOf(registry.audience({ customerId: 'x', tags: null, ...LINE, versionKey: '00', limit: 1, offset: 0 }))).toBe(ErrorCode.BadRequest);
  });
});

describe('fleet summary', () => {
  const customer = makeCustomer();
  const now = Date.now();
  const ago = (seconds: number) => new Date(now - seconds * 1000);

  beforeAll(async () => {
    const checks: [string, string, number][] = [
      ['v1-a', '1.0', 60],
      ['v1-b', '1.0', 2 * 3600],
      ['v1-c', '1.0', 3 * 86_400],
      ['v2-a', '2.0', 10 * 86_400],
      ['v2-b', '2.0', 40 * 86_400],
      ['v3-a', '3.0', 30],
    ];
    for (const [hwid] of checks) await create(customer, hwid, hwid.endsWith('-a') ? ['beta'] : []);
    await create(customer, 'never', ['beta']);
    await create(customer, 'gone');
    await registry.devicesSeen({
      items: checks.map(([hwid, version, seconds]) => seen(customer, hwid, version, ago(seconds), hwid === 'v3-a' ? { hwName: 'other' } : LINE)),
    });
    await devices.withdraw(makeCall(makeDeviceContext(customer), { params: { hwid: 'gone' } }));
  });

  it('counts active devices by version (top N, the rest in other_versions) and by last-seen age; withdrawn apart', async () => {
    const result = await summary(customer, { versions: 2 });
    expect(result).toMatchObject({
      active: 7,
      withdrawn: 1,
      versions: [
        { fw_version: '1.0', devices: 3 },
        { fw_version: '2.0', devices: 2 },
      ],
      other_versions: 1,
      never_reported: 1,
      last_seen: { never: 1, under_1h: 2, under_24h: 1, under_7d: 1, under_30d: 1, older: 1 },
    });
    expect(Math.abs(Date.parse(result.at) - Date.now())).toBeLessThan(60_000);
  });

  it('filters by tag and by product line', async () => {
    expect(await summary(customer, { tag: 'beta' })).toMatchObject({
      active: 4,
      withdrawn: 0,
      versions: [
        { fw_version: '1.0', devices: 1 },
        { fw_version: '2.0', devices: 1 },
        { fw_version: '3.0', devices: 1 },
      ],
      never_reported: 1,
    });
    expect(await summary(customer, { hw_name: 'board', hw_version: 'rev1', fw_name: 'main' })).toMatchObject({
      active: 5,
      never_reported: 0,
      other_versions: 0,
    });
    expect(await summary(customer, { hw_name: 'other' })).toMatchObject({ active: 1, versions: [{ fw_version: '3.0', devices: 1 }] });
  });

  it("is the caller's customer only, and refuses bad filters with a 400", async () => {
    expect(await summary(makeCustomer())).toMatchObject({ active: 0, withdrawn: 0, versions: [], last_seen: { never: 0, older: 0 } });
    expect(await codeOf(summary(customer, { versions: 0 }))).toBe(ErrorCode.BadRequest);
    expect(await codeOf(summary(customer, { tag: '-bad' }))).toBe(ErrorCode.BadRequest);
    expect(await codeOf(summary(customer, { hw_name: 'a b' }))).toBe(ErrorCode.BadRequest);
    const stranger = makeCustomer();
    // The tenant comes from the request context only.
    const ctx = makeDeviceContext(stranger, { principal: makeDeviceToken(stranger) });
    expect((await devices.summary(makeCall(ctx, { query: {} as never }))).active).toBe(0);
  });
});

describe('at 200,000 devices', () => {
  const DEVICES = 200_000;
  const customer = { id: asCustomerId(randomUUID()) };
  const VERSIONS = ['1.0', '1.1', '1.2', '2.0-rc1', '2.0'];

  beforeAll(async () => {
    const neighbour = randomUUID();
    for (const [id, count] of [
      [customer.id, DEVICES],
      [neighbour, DEVICES / 4],
    ] as const) {
      // Every 20th never checked in, every 50th withdrawn, every 10th tagged beta; three product lines, five versions.
      // Stored in no particular HW id order, as devices register over time: a heap in primary-key
      // order would make walking it along the primary key look as cheap as the index-only scan.
      await dataSource.query(
        `INSERT INTO registry.device (customer_id, hwid, status, tags, last_seen_at, last_fw_version, last_hw_name, last_hw_version, last_fw_name, last_version_key)
         SELECT $1, 'dev-' || lpad(i::text, 7, '0'),
                CASE WHEN i % 50 = 0 THEN 'withdrawn' ELSE 'active' END,
                CASE WHEN i % 10 = 0 THEN ARRAY['beta'] ELSE '{}' END::text[],
                CASE WHEN i % 20 = 0 THEN NULL ELSE now() - (i % 2000) * interval '1 hour' END,
                CASE WHEN i % 20 = 0 THEN NULL ELSE ($3::text[])[1 + i % 5] END,
                CASE WHEN i % 20 = 0 THEN NULL ELSE 'board' END,
                CASE WHEN i % 20 = 0 THEN NULL ELSE 'rev' || (i % 3) END,
                CASE WHEN i % 20 = 0 THEN NULL ELSE 'main' END,
                CASE WHEN i % 20 = 0 THEN NULL ELSE ($4::bytea[])[1 + i % 5] END
         FROM generate_series(1, $2::int) AS i ORDER BY random()`,
        [id, count, VERSIONS, VERSIONS.map((v) => versionKey(v))],
      );
      await dataSource.query(
        `INSERT INTO registry.device_tag (customer_id, tag, hwid) SELECT customer_id, 'beta', hwid FROM registry.device WHERE customer_id = $1 AND tags = ARRAY['beta']::text[]`,
        [id],
      );
    }
    await dataSource.query(`VACUUM ANALYZE registry.device`);
    await dataSource.query(`VACUUM ANALYZE registry.device_tag`);
  });

  /** The statements a repository call runs (in a transaction, as the use cases run it), run again under EXPLAIN in it: each plan's text. */
  function plansOf(call: (repository: DeviceRolloutRepository) => Promise<unknown>): Promise<string[]> {
    return dataSource.transaction(async (manager) => {
      const statements: [string, unknown[]][] = [];
      // sql() runs a transaction's statements on its query runner: recorded there, then the runner is as it was.
      const runner = manager.queryRunner!;
      const query = runner.query;
      runner.query = ((text: string, params?: unknown[], ...rest: unknown[]) => {
        statements.push([text, params ?? []]);
        return (query as (...args: unknown[]) => Promise<unknown>).call(runner, text, params, ...rest);
      }) as typeof runner.query;
      try {
        await call(new DeviceRolloutRepository(manager));
      } finally {
        runner.query = query;
      }
      const plans: string[] = [];
      for (const [text, params] of statements) {
        if (/^(SELECT set_config|SET LOCAL)/.test(text)) continue;
        const rows: { 'QUERY PLAN': string }[] = await manager.query(`EXPLAIN ${text}`, params);
        plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
      return plans;
    });
  }

  const audienceQuery = (tags: string[] | null) => ({
    customerId: customer.id,
    tags,
    line: { hwName: 'board', hwVersion: 'rev1', fwName: 'main' },
    versionKey: versionKey('2.0'),
    limit: 100,
    offset: 0,
  });

  it('counts an audience with the right numbers', async () => {
    const found = await dataSource.transaction((manager) => new DeviceRolloutRepository(manager).audience(audienceQuery(null)));
    // rev1: i % 3 = 1; checked in: i % 20 != 0; active: i % 50 != 0; older than 2.0: i % 5 != 4.
    let expected = 0;
    let never = 0;
    for (let i = 1; i <= DEVICES; i++) {
      if (i % 50 === 0) continue;
      if (i % 20 === 0) never++;
      else if (i % 3 === 1 && i % 5 !== 4) expected++;
    }
    expect(found.devices).toBe(expected);
    expect(found.neverCheckedIn).toBe(never);
    expect(found.items).toHaveLength(100);
  });

  it('answers audiences and the fleet summary from indexes: no sequential scan of the devices', async () => {
    const plans = [
      ...(await plansOf((r) => r.audience(audienceQuery(null)))),
      ...(await plansOf((r) => r.audience(audienceQuery(['beta'])))),
      ...(await plansOf((r) => r.fleet({ customerId: customer.id, versions: 10, at: new Date() }))),
      ...(await plansOf((r) => r.fleet({ customerId: customer.id, hwName: 'board', hwVersion: 'rev2', fwName: 'main', versions: 10, at: new Date() }))),
      ...(await plansOf((r) => r.fleet({ customerId: customer.id, tag: 'beta', versions: 10, at: new Date() }))),
    ];
    expect(plans).toHaveLength(12);
    for (const plan of plans) expect(plan).not.toMatch(/Seq Scan|Bitmap Heap Scan/);
    // Active devices: device_line_idx (index-only); the withdrawn counts of the summary: device_withdrawn_idx.
    for (const plan of plans) expect(plan).toMatch(/device_line_idx|device_withdrawn_idx/);
    expect(plans.filter((plan) => /Index Only Scan using device_line_idx/.test(plan))).toHaveLength(9);
    expect(plans.filter((plan) => /device_withdrawn_idx/.test(plan))).toHaveLength(3);
  });
});

describe('migration', () => {
  it('reverts the product line (columns and index gone, devices kept) and applies it again', async () => {
    await moduleRef.close();
    await closeDatabases();
    // The migrations after the product line first (their own medium tests check what their downs do).
    const later = REGISTRY_DATABASE.migrations.slice(REGISTRY_DATABASE.migrations.findIndex((m) => m.name === 'RegistryDeviceProductLine1764600000000') + 1);
    for (const migration of later.reverse()) expect(await revertLastMigration(throwaway.config, REGISTRY_DATABASE)).toBe(migration.name);
    expect(await revertLastMigration(throwaway.config, REGISTRY_DATABASE)).toBe('RegistryDeviceProductLine1764600000000');
    const reverted = await openAppDatabase(throwaway.config, { ...REGISTRY_DATABASE, migrate: false });
    const columns = `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'registry' AND table_name = 'device' AND column_name LIKE 'last\\_%'`;
    expect(await reverted.query(columns)).toEqual([{ n: 2 }]);
    expect(await reverted.query(`SELECT to_regclass('registry.device_line_idx') AS i`)).toEqual([{ i: null }]);
    const [{ n }] = await reverted.query(`SELECT count(*)::int AS n FROM registry.device`);
    expect(n).toBeGreaterThan(250_000);
    await closeDatabases();
    const migrated = await openAppDatabase(throwaway.config, REGISTRY_DATABASE);
    expect(await migrated.query(columns)).toEqual([{ n: 6 }]);
  });
});
