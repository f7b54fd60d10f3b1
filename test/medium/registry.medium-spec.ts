import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import {
  asCustomerId,
  type CustomerRef,
  type Device,
  type DeviceImportResult,
  ErrorCode,
  HWID_RULE,
  MAX_DEVICE_LOOKUP_BATCH,
  RegistryEvents,
  rolloutBucket,
  type StagedFile,
} from '@app/contracts';
import { closeDatabases, configureLogging, FilesystemObjectStore, type ObjectStore, openAppDatabase, revertLastMigration } from '@app/infra';
import { clearOutbox, outboxPayloads } from '@app/testing';
import { DataSource } from 'typeorm';
import type { DevicesController } from '../../apps/registry/src/controllers/devices.controller.js';
import type { RegistryController } from '../../apps/registry/src/controllers/registry.controller.js';
import { REGISTRY_DATABASE } from '../../apps/registry/src/registry.module.js';
import { DeviceImportRepository } from '../../apps/registry/src/repositories/device-import.repository.js';
import { DeviceSightingRepository } from '../../apps/registry/src/repositories/device-sighting.repository.js';
import { ImportDevices } from '../../apps/registry/src/use-cases/import-devices/import-devices.usecase.js';
import { RecordSightingsCommand } from '../../apps/registry/src/use-cases/record-sightings/record-sightings.command.js';
import { MAX_WAITING_SIGHTINGS, RecordSightings } from '../../apps/registry/src/use-cases/record-sightings/record-sightings.usecase.js';
import { makeCall, makeCustomer, serviceErrorOf } from '@app/testing';
import { makeDeviceContext, makeDeviceToken, makeHwid, makePublicKeys } from '../../apps/registry/test/factories.js';
import { createThrowaway, stageFile, exists, type Throwaway } from './logdata.support.js';
import { codeOf, expectedHwids, type ModelDevice, type ModelFilter, RecordingBus, registryModule } from './registry.support.js';

configureLogging({ sink: () => undefined });
// jest ignores a project's testTimeout; imports of thousands of rows take seconds on a busy machine
jest.setTimeout(60_000);

let throwaway: Throwaway;
let dataSource: DataSource;
let store: ObjectStore;
let bus: RecordingBus;
let moduleRef: TestingModule;
let devices: DevicesController;
let registry: RegistryController;

beforeAll(async () => {
  throwaway = await createThrowaway('registry');
  dataSource = await openAppDatabase(throwaway.config, REGISTRY_DATABASE);
  store = new FilesystemObjectStore(join(throwaway.dataDir, 'objects'));
  bus = new RecordingBus();
  ({ moduleRef, devices, registry } = await registryModule(throwaway.config, dataSource, store, bus));
});

afterAll(async () => {
  await moduleRef?.close();
  await closeDatabases();
  await throwaway?.dispose();
});

const RFC3339_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const create = (customer: CustomerRef, body: Record<string, unknown>) => devices.create(makeCall(makeDeviceContext(customer), { body: body as never }));
const get = (customer: CustomerRef, hwid: string) => devices.get(makeCall(makeDeviceContext(customer), { params: { hwid } }));

async function importBody(
  customer: CustomerRef,
  content: string,
  contentType: string,
  ctx = makeDeviceContext(customer),
): Promise<{ result: DeviceImportResult; file: StagedFile }> {
  const file = await stageFile(store, content, contentType);
  return { result: await devices.import(makeCall(ctx, { file, contentType })), file };
}

describe('schema', () => {
  it('has the primary keys, the tag index and the partial indexes the list queries rely on', async () => {
    const rows: { indexname: string; indexdef: string }[] = await dataSource.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'registry' AND tablename IN ('device', 'device_tag') ORDER BY indexname`,
    );
    expect(rows.map((r) => r.indexname)).toEqual([
      'device_bucket_idx',
      'device_line_idx',
      'device_pkey',
      'device_tag_pkey',
      'device_with_keys_idx',
      'device_withdrawn_idx',
      'device_without_keys_idx',
    ]);
    expect(rows.find((r) => r.indexname === 'device_tag_pkey')!.indexdef).toMatch(/\(customer_id, tag, hwid\)/);
    const collations: { column_name: string; collation_name: string }[] = await dataSource.query(
      `SELECT column_name, collation_name FROM information_schema.columns WHERE table_schema = 'registry' AND column_name IN ('hwid', 'tag') ORDER BY table_name, column_name`,
    );
    expect(collations.every((c) => c.collation_name === 'C')).toBe(true);
  });

  it('refuses a HW id outside the rule even when written directly', async () => {
    // validated once swapped in (the migration adds it NOT VALID, then validates the rows there)
    expect(await dataSource.query(`SELECT convalidated FROM pg_constraint WHERE conname = 'device_hwid_check'`)).toEqual([{ convalidated: true }]);
    const insert = (hwid: string) => dataSource.query(`INSERT INTO registry.device (customer_id, hwid) VALUES ($1, $2)`, [randomUUID(), hwid]);
    for (const outside of ['a b', '', 'x'.repeat(65), 'caf\u00e9', 'tab\there', 'line\n', '\u007f']) {
      await expect(insert(outside)).rejects.toThrow(/device_hwid_check/);
    }
    for (const inside of ['!', '~', 'x'.repeat(64), 'a/b?c#d%e', '"quoted"\\back']) await expect(insert(inside)).resolves.toBeDefined();
  });
});

describe('device operations', () => {
  it('creates a device with tags, attributes and keys; 409 for the same HW id; audit and deviceChanged', async () => {
    const customer = makeCustomer();
    const { pem } = makePublicKeys();
    bus.clear();
    await clearOutbox(dataSource, 'registry');
    const device = await create(customer, { hwid: 'a/b?c#d%e', tags: ['beta', 'Alpha', 'beta'], attributes: { site: 'Oslo', n: [1, 2] }, keys: [pem] });
    expect(device).toEqual({
      hwid: 'a/b?c#d%e',
      status: 'active',
      tags: ['Alpha', 'beta'],
      attributes: { site: 'Oslo', n: [1, 2] },
      keys: [pem],
      has_keys: true,
      created_at: expect.stringMatching(RFC3339_MS),
      updated_at: device.created_at,
      last_seen_at: null,
      last_fw_version: null,
    });
    expect(await get(customer, 'a/b?c#d%e')).toEqual(device);
    expect(bus.of(RegistryEvents.deviceChanged.subject)).toEqual([{ customerId: customer.id, hwid: 'a/b?c#d%e' }]);
    expect(await outboxPayloads(dataSource, 'registry', 'audit')).toEqual([
      expect.objectContaining({
        domain: customer.domain,
        actor: 'token:tok-1',
        action: 'device.create',
        target_type: 'device',
        target_id: 'a/b?c#d%e',
        before: null,
        after: device,
      }),
    ]);
    expect((await serviceErrorOf(create(customer, { hwid: 'a/b?c#d%e' }))).reason).toBe('device_conflict');
    // another customer may use the same HW id
    expect((await create(makeCustomer(), { hwid: 'a/b?c#d%e' })).tags).toEqual([]);
  });

  it('needs tags:write to create a device with tags (admin allows everything), and checks every rule', async () => {
    const customer = makeCustomer();
    const writer = makeDeviceContext(customer, { principal: makeDeviceToken(customer, ['devices:read', 'devices:write']) });
    expect(await codeOf(devices.create(makeCall(writer, { body: { hwid: makeHwid(), tags: ['x'] } })))).toBe(ErrorCode.Forbidden);
    expect((await devices.create(makeCall(writer, { body: { hwid: makeHwid(), tags: [] } }))).tags).toEqual([]);
    const admin = makeDeviceContext(customer, { principal: makeDeviceToken(makeCustomer(), ['admin'], { admin: 'full' }), auditActor: 'admin:token:tok-9' });
    bus.clear();
    await clearOutbox(dataSource, 'registry');
    expect((await devices.create(makeCall(admin, { body: { hwid: 'by-admin', tags: ['x'] } }))).tags).toEqual(['x']);
    expect((await outboxPayloads(dataSource, 'registry', 'audit'))[0]).toMatchObject({ actor: 'admin:token:tok-9', domain: customer.domain });
    const readAdmin = makeDeviceContext(customer, {
      principal: makeDeviceToken(makeCustomer(), ['devices:read', 'devices:write', 'tags:write'], { admin: 'read' }),
    });
    expect(await codeOf(devices.create(makeCall(readAdmin, { body: { hwid: makeHwid(), tags: ['x'] } })))).toBe(ErrorCode.Forbidden);
    for (const body of [
      { hwid: 'has space' },
      { hwid: '' },
      { hwid: 'x'.repeat(65) },
      { hwid: 'ok1', tags: ['-bad'] },
      { hwid: 'ok2', attributes: [] },
      { hwid: 'ok3', keys: ['nope'] },
    ]) {
      expect(await codeOf(create(customer, body))).toBe(ErrorCode.BadRequest);
    }
    await expect(create(customer, { hwid: 'a b' })).rejects.toMatchObject({ message: HWID_RULE });
  });

  it('updates attributes and keys; a no-op changes nothing; 404 for an unknown device', async () => {
    const customer = makeCustomer();
    const { jwk } = makePublicKeys();
    const created = await create(customer, { hwid: 'dev', attributes: { a: 1 } });
    await new Promise((r) => setTimeout(r, 5));
    bus.clear();
    await clearOutbox(dataSource, 'registry');
    const same = await devices.update(makeCall(makeDeviceContext(customer), { params: { hwid: 'dev' }, body: { attributes: { a: 1 } } }));
    expect(same).toEqual(created);
    expect(bus.events).toEqual([]);
    const updated = await devices.update(makeCall(makeDeviceContext(customer), { params: { hwid: 'dev' }, body: { keys: [jwk] } }));
    expect(updated).toMatchObject({ attributes: { a: 1 }, keys: [jwk], has_keys: true });
    expect(updated.updated_at > created.updated_at).toBe(true);
    const replaced = await devices.update(makeCall(makeDeviceContext(customer), { params: { hwid: 'dev' }, body: { attributes: { b: 2 }, keys: [] } }));
    expect(replaced).toMatchObject({ attributes: { b: 2 }, keys: [], has_keys: false });
    expect((await outboxPayloads(dataSource, 'registry', 'audit')).map((a) => [a.action, a.before.keys.length, a.after.keys.length])).toEqual([
      ['device.update', 0, 1],
      ['device.update', 1, 0],
    ]);
    expect(bus.of(RegistryEvents.deviceChanged.subject)).toEqual([]); // status and tags did not change
    expect(await codeOf(devices.update(makeCall(makeDeviceContext(customer), { params: { hwid: 'nobody' }, body: { attributes: {} } })))).toBe(
      ErrorCode.NotFound,
    );
    expect(await codeOf(devices.update(makeCall(makeDeviceContext(customer), { params: { hwid: 'dev' }, body: { tags: [] } as never })))).toBe(
      ErrorCode.BadRequest,
    );
  });

  it('withdraws (keeping everything) and reactivates, idempotently', async () => {
    const customer = makeCustomer();
    const ctx = makeDeviceContext(customer);
    const created = await create(customer, { hwid: 'w', tags: ['t'], attributes: { k: 'v' } });
    bus.clear();
    await clearOutbox(dataSource, 'registry');
    const withdrawn = await devices.withdraw(makeCall(ctx, { params: { hwid: 'w' } }));
    expect(withdrawn).toMatchObject({ status: 'withdrawn', tags: ['t'], attributes: { k: 'v' }, created_at: created.created_at });
    expect(await devices.withdraw(makeCall(ctx, { params: { hwid: 'w' } }))).toEqual(withdrawn);
    expect(await registry.lookupDevice({ customerId: customer.id, hwid: 'w' })).toEqual({ status: 'withdrawn', tags: ['t'], bucket: rolloutBucket('w') });
    const active = await devices.reactivate(makeCall(ctx, { params: { hwid: 'w' } }));
    expect(active).toMatchObject({ status: 'active', tags: ['t'], attributes: { k: 'v' } });
    expect((await outboxPayloads(dataSource, 'registry', 'audit')).map((a) => [a.action, a.before.status, a.after.status])).toEqual([
      ['device.withdraw', 'active', 'withdrawn'],
      ['device.reactivate', 'withdrawn', 'active'],
    ]);
    expect(bus.of(RegistryEvents.deviceChanged.subject)).toHaveLength(2);
    expect((await serviceErrorOf(devices.withdraw(makeCall(ctx, { params: { hwid: 'nobody' } })))).reason).toBe('device_not_found');
  });

  it('changes tags idempotently and keeps device_tag in step with device.tags', async () => {
    const customer = makeCustomer();
    const ctx = makeDeviceContext(customer);
    await create(customer, { hwid: 'd' });
    bus.clear();
    await clearOutbox(dataSource, 'registry');
    const p = { hwid: 'd' };
    expect(await devices.replaceTags(makeCall(ctx, { params: p, body: { tags: ['b', 'a'] } }))).toEqual({ tags: ['a', 'b'] });
    expect(await devices.replaceTags(makeCall(ctx, { params: p, body: { tags: ['a', 'b', 'a'] } }))).toEqual({ tags: ['a', 'b'] });
    await devices.addTag(makeCall(ctx, { params: { hwid: 'd', tag: 'c' } }));
    await devices.addTag(makeCall(ctx, { params: { hwid: 'd', tag: 'c' } }));
    await devices.removeTag(makeCall(ctx, { params: { hwid: 'd', tag: 'a' } }));
    await devices.removeTag(makeCall(ctx, { params: { hwid: 'd', tag: 'a' } }));
    expect(await devices.getTags(makeCall(ctx, { params: p }))).toEqual({ tags: ['b', 'c'] });
    expect((await outboxPayloads(dataSource, 'registry', 'audit')).map((a) => [a.action, a.before.tags, a.after.tags])).toEqual([
      ['device.tags.replace', [], ['a', 'b']],
      ['device.tags.add', ['a', 'b'], ['a', 'b', 'c']],
      ['device.tags.remove', ['a', 'b', 'c'], ['b', 'c']],
    ]);
    expect(bus.of(RegistryEvents.deviceChanged.subject)).toHaveLength(3);
    const index = await dataSource.query(`SELECT tag FROM registry.device_tag WHERE customer_id = $1 AND hwid = 'd' ORDER BY tag`, [customer.id]);
    expect(index.map((r: { tag: string }) => r.tag)).toEqual(['b', 'c']);
    expect(await codeOf(devices.addTag(makeCall(ctx, { params: { hwid: 'nobody', tag: 'c' } })))).toBe(ErrorCode.NotFound);
    expect(await codeOf(devices.removeTag(makeCall(ctx, { params: { hwid: 'nobody', tag: 'c' } })))).toBe(ErrorCode.NotFound);
    expect(await codeOf(devices.addTag(makeCall(ctx, { params: { hwid: 'd', tag: 'no/slash' } })))).toBe(ErrorCode.BadRequest);
  });

  it('serializes concurrent tag changes of one device: none is lost', async () => {
    const customer = makeCustomer();
    await create(customer, { hwid: 'busy' });
    const tags = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    await Promise.all(tags.map((tag) => devices.addTag(makeCall(makeDeviceContext(customer), { params: { hwid: 'busy', tag } }))));
    expect((await get(customer, 'busy')).tags).toEqual(tags);
    const index = await dataSource.query(`SELECT count(*)::int AS n FROM registry.device_tag WHERE customer_id = $1`, [customer.id]);
    expect(index[0].n).toBe(20);
  });

  it('keeps tenants apart', async () => {
    const a = makeCustomer();
    const b = makeCustomer();
    await create(a, { hwid: 'mine', tags: ['x'] });
    expect(await codeOf(get(b, 'mine'))).toBe(ErrorCode.NotFound);
    expect(await codeOf(devices.addTag(makeCall(makeDeviceContext(b), { params: { hwid: 'mine', tag: 'y' } })))).toBe(ErrorCode.NotFound);
    expect((await devices.list(makeCall(makeDeviceContext(b), { query: {} }))).items).toEqual([]);
    expect((await devices.list(makeCall(makeDeviceContext(b), { query: { tag: ['x'] } as never }))).items).toEqual([]);
    expect(await registry.lookupDevice({ customerId: b.id, hwid: 'mine' })).toBeNull();
  });
});

describe('list filters', () => {
  const customer = makeCustomer();
  const model: ModelDevice[] = [];
  // Prefix characters that are wildcards or special elsewhere (LIKE % and _, regex, path).
  const names = ['a', 'a%', 'a%b', 'a_', 'a_b', 'ab', 'abc', 'A', 'B1', 'b/1', 'b?2', 'b#3', '~z', '!x', 'z~', 'zz', 'x.1', 'x.2', 'x.10', 'm:1', 'AB', 'aB'];
  const tagPool = ['red', 'green', 'blue', 'Red'];

  beforeAll(async () => {
    const { pem } = makePublicKeys();
    for (const [i, hwid] of names.entries()) {
      const tags = tagPool.filter((_, j) => (i >> j) & 1);
      const hasKeys = i % 3 === 0;
      await create(customer, { hwid, tags, ...(hasKeys ? { keys: [pem] } : {}) });
      const withdrawn = i % 4 === 1;
      if (withdrawn) await devices.withdraw(makeCall(makeDeviceContext(customer), { params: { hwid } }));
      model.push({ hwid, tags, status: withdrawn ? 'withdrawn' : 'active', hasKeys });
    }
    await create(makeCustomer(), { hwid: 'a', tags: ['red'] }); // another customer's device never shows
  });

  const list = async (filter: ModelFilter, paging: { limit?: number; offset?: number } = {}) =>
    devices.list(
      makeCall(makeDeviceContext(customer), {
        query: {
          ...(filter.tags ? { tag: filter.tags } : {}),
          ...(filter.tagMode ? { tag_mode: filter.tagMode } : {}),
          ...(filter.q !== undefined ? { q: filter.q } : {}),
          ...(filter.status ? { status: filter.status } : {}),
          ...(filter.hasKeys !== undefined ? { has_keys: filter.hasKeys } : {}),
          ...paging,
        } as never,
      }),
    );

  it('answers every combination of tag (none, one, two, three; any and all), q, status and has_keys like the reference', async () => {
    const tagSets = [[], ['red'], ['red', 'blue'], ['green', 'blue', 'Red'], ['nobody']];
    const prefixes = [undefined, 'a', 'a%', 'a_', 'b', 'x.1', '~', 'nothing'];
    let checked = 0;
    for (const tags of tagSets)
      for (const tagMode of ['any', 'all'] as const)
        for (const q of prefixes)
          for (const status of [undefined, 'active', 'withdrawn'] as const)
            for (const hasKeys of [undefined, true, false]) {
              const filter: ModelFilter = { tags, tagMode, q, status, hasKeys };
              const page = await list(filter, { limit: 500 });
              expect({ filter, hwids: page.items.map((d: Device) => d.hwid) }).toEqual({ filter, hwids: expectedHwids(model, filter) });
              expect(page.next_offset).toBeNull();
              checked++;
            }
    expect(checked).toBe(5 * 2 * 8 * 3 * 3);
  });

  it('sorts by HW id in byte order and pages with limit, offset and next_offset', async () => {
    const all = expectedHwids(model, {});
    expect(all.slice(0, 4)).toEqual(['!x', 'A', 'AB', 'B1']);
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: { items: Device[]; next_offset: number | null } = await list({}, { limit: 5, offset });
      seen.push(...page.items.map((d) => d.hwid));
      expect(page.items.length).toBeLessThanOrEqual(5);
      offset = page.next_offset;
    }
    expect(seen).toEqual(all);
    const last = await list({}, { limit: all.length });
    expect(last.next_offset).toBeNull();
    expect((await list({}, { limit: all.length - 1 })).next_offset).toBe(all.length - 1);
    expect((await list({}, { offset: 1000 })).items).toEqual([]);
    const tagged = expectedHwids(model, { tags: ['red', 'green'] });
    const firstPage = await list({ tags: ['red', 'green'] }, { limit: 2 });
    expect(firstPage.items.map((d) => d.hwid)).toEqual(tagged.slice(0, 2));
    expect(firstPage.next_offset).toBe(2);
    expect((await list({ tags: ['red', 'green'] }, { limit: 2, offset: 2 })).items.map((d) => d.hwid)).toEqual(tagged.slice(2, 4));
  });

  it('pages any-of-several-tags with status and has_keys filters across candidate chunks (more than 1000 tagged devices)', async () => {
    const big = makeCustomer();
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      hwid: `n${String(i).padStart(5, '0')}`,
      tags: i % 3 === 0 ? ['x'] : i % 3 === 1 ? ['y', 'z'] : ['z'],
    }));
    expect((await importBody(big, JSON.stringify(rows), 'application/json')).result).toMatchObject({ created: 3000 });
    // white box: withdraw every 7th and give keys to every 5th without 3000 requests
    await dataSource.query(`UPDATE registry.device SET status = 'withdrawn' WHERE customer_id = $1 AND right(hwid, 5)::int % 7 = 0`, [big.id]);
    await dataSource.query(`UPDATE registry.device SET keys = ARRAY['k'] WHERE customer_id = $1 AND right(hwid, 5)::int % 5 = 0`, [big.id]);
    const bigModel: ModelDevice[] = rows.map((r, i) => ({ hwid: r.hwid, tags: r.tags, status: i % 7 === 0 ? 'withdrawn' : 'active', hasKeys: i % 5 === 0 }));
    for (const filter of [
      { tags: ['x', 'y'], tagMode: 'any' as const, status: 'withdrawn' as const },
      { tags: ['x', 'y'], tagMode: 'any' as const, hasKeys: true, q: 'n01' },
      { tags: ['x', 'z'], tagMode: 'any' as const },
    ]) {
      const want = expectedHwids(bigModel, filter);
      const got: string[] = [];
      for (let offset = 0; offset < want.length + 60; offset += 60) {
        const page = await devices.list(
          makeCall(makeDeviceContext(big), {
            query: { tag: filter.tags, tag_mode: 'any', status: filter.status, has_keys: filter.hasKeys, q: filter.q, limit: 60, offset } as never,
          }),
        );
        got.push(...page.items.map((d: Device) => d.hwid));
        expect(page.next_offset).toBe(offset + 60 < want.length ? offset + 60 : null);
      }
      expect({ filter, got }).toEqual({ filter, got: want });
    }
  });

  it('refuses invalid filters with a 400', async () => {
    for (const query of [
      { tag: ['no/slash'] },
      { tag_mode: 'some' },
      { q: 'has space' },
      { status: 'gone' },
      { has_keys: 'maybe' },
      { limit: 0 },
      { limit: 501 },
      { offset: -1 },
    ]) {
      expect(await codeOf(devices.list(makeCall(makeDeviceContext(customer), { query: query as never })))).toBe(ErrorCode.BadRequest);
    }
  });
});

describe('import', () => {
  it('applies a CSV file, reports bad rows with CSV line numbers, and a second run changes nothing', async () => {
    const customer = makeCustomer();
    const csv = ['hwid,tags', 'dev-1,beta alpha', '"dev,2",', 'bad id,x', 'dev-3,ok -bad', '', 'dev-4,"a b"', 'dev-5', '"dev-6",c'].join('\r\n') + '\r\n';
    bus.clear();
    await clearOutbox(dataSource, 'registry');
    const { result, file } = await importBody(customer, csv, 'text/csv; charset=utf-8');
    expect(result).toEqual({
      created: 4,
      updated: 0,
      unchanged: 0,
      errors: [
        { line: 4, hwid: 'bad id', error: HWID_RULE },
        { line: 5, hwid: 'dev-3', error: expect.stringContaining('tag must match') },
        { line: 8, hwid: 'dev-5', error: 'expected 2 fields, found 1' },
      ],
      error_count: 3,
    });
    expect(await exists(store, file.key)).toBe(false); // the staged body is gone
    expect((await get(customer, 'dev-1')).tags).toEqual(['alpha', 'beta']);
    expect((await get(customer, 'dev,2')).tags).toEqual([]);
    expect((await get(customer, 'dev-4')).tags).toEqual(['a', 'b']);
    const before = (await devices.list(makeCall(makeDeviceContext(customer), { query: {} }))).items;
    expect(await outboxPayloads(dataSource, 'registry', 'audit')).toEqual([
      expect.objectContaining({
        action: 'device.import',
        target_type: 'device_import',
        before: null,
        after: expect.objectContaining({ format: 'csv', created: 4, updated: 0, unchanged: 0, error_count: 3, rows: 7 }),
      }),
    ]);
    expect(bus.of(RegistryEvents.deviceChanged.subject)).toEqual([{ customerId: customer.id, hwid: null }]);

    await new Promise((r) => setTimeout(r, 5));
    bus.clear();
    await clearOutbox(dataSource, 'registry');
    const again = await importBody(customer, csv, 'text/csv');
    expect(again.result).toMatchObject({ created: 0, updated: 0, unchanged: 4, error_count: 3 });
    expect((await devices.list(makeCall(makeDeviceContext(customer), { query: {} }))).items).toEqual(before);
    expect(bus.of(RegistryEvents.deviceChanged.subject)).toEqual([]);
  });

  it('upserts: given values replace, absent ones stay; status is never changed by an import', async () => {
    const customer = makeCustomer();
    await create(customer, { hwid: 'keep', tags: ['x'], attributes: { a: 1 } });
    await devices.withdraw(makeCall(makeDeviceContext(customer), { params: { hwid: 'keep' } }));
    const { result } = await importBody(customer, JSON.stringify([{ hwid: 'keep', attributes: { a: 2 } }, { hwid: 'new' }]), 'application/json');
    expect(result).toMatchObject({ created: 1, updated: 1, unchanged: 0, error_count: 0 });
    expect(await get(customer, 'keep')).toMatchObject({ status: 'withdrawn', tags: ['x'], attributes: { a: 2 } });
    expect(await get(customer, 'new')).toMatchObject({ status: 'active', tags: [], attributes: {} });
    // a tags column replaces the set; an empty cell clears it; a file without the column keeps tags
    expect((await importBody(customer, 'hwid\nkeep\n', 'text/csv')).result).toMatchObject({ unchanged: 1 });
    expect((await importBody(customer, 'hwid,tags\nkeep,\n', 'text/csv')).result).toMatchObject({ updated: 1 });
    expect((await get(customer, 'keep')).tags).toEqual([]);
    // the same HW id twice in one file: applied in order, the later row wins
    expect((await importBody(customer, 'hwid,tags\ntwice,a\ntwice,b\n', 'text/csv')).result).toMatchObject({ created: 1, updated: 1 });
    expect((await get(customer, 'twice')).tags).toEqual(['b']);
    const index = await dataSource.query(`SELECT hwid, tag FROM registry.device_tag WHERE customer_id = $1 ORDER BY hwid, tag`, [customer.id]);
    expect(index).toEqual([{ hwid: 'twice', tag: 'b' }]);
  });

  it('reports JSON rows by their position, and refuses a body that is not an array or a bad CSV header with a 400', async () => {
    const customer = makeCustomer();
    const body = '[{"hwid":"j1","tags":["a"]}, 5, {"hwid":"j 2"}, {"hwid":"j3","keys":[]}, {"hwid":"j4","attributes":{"x":1}}]';
    const { result } = await importBody(customer, body, 'application/json');
    expect(result).toEqual({
      created: 2,
      updated: 0,
      unchanged: 0,
      errors: [
        { line: 2, hwid: null, error: 'each element must be an object {hwid, tags?, attributes?}' },
        { line: 3, hwid: 'j 2', error: HWID_RULE },
        { line: 4, hwid: 'j3', error: 'unknown property "keys" (allowed: hwid, tags, attributes)' },
      ],
      error_count: 3,
    });
    for (const [content, type, reason] of [
      ['{"hwid":"x"}', 'application/json', 'device_import_not_json_array'],
      ['id,tags\nx,y\n', 'text/csv', 'device_import_csv_header_invalid'],
      ['', 'text/csv', 'device_import_csv_empty'],
    ] as const) {
      const file = await stageFile(store, content, type);
      expect((await serviceErrorOf(devices.import(makeCall(makeDeviceContext(customer), { file, contentType: type })))).reason).toBe(reason);
      expect(await exists(store, file.key)).toBe(false);
    }
    const xml = await stageFile(store, '<devices/>', 'application/xml');
    expect((await serviceErrorOf(devices.import(makeCall(makeDeviceContext(customer), { file: xml, contentType: 'application/xml' })))).reason).toBe(
      'device_import_media_type',
    );
    expect(await exists(store, xml.key)).toBe(false);
  });

  it('rows that set tags need tags:write', async () => {
    const customer = makeCustomer();
    const ctx = makeDeviceContext(customer, { principal: makeDeviceToken(customer, ['devices:write']) });
    const { result } = await importBody(customer, 'hwid,tags\nt1,a\nt2,\n', 'text/csv', ctx);
    expect(result.errors).toEqual([
      { line: 2, hwid: 't1', error: 'setting tags needs scope tags:write' },
      { line: 3, hwid: 't2', error: 'setting tags needs scope tags:write' },
    ]);
    expect((await importBody(customer, 'hwid\nt1\n', 'text/csv', ctx)).result).toMatchObject({ created: 1, error_count: 0 });
  });

  it('caps the listed errors but counts them all', async () => {
    const customer = makeCustomer();
    const csv = 'hwid,tags\n' + Array.from({ length: 1500 }, (_, i) => `bad id ${i},x`).join('\n');
    const { result } = await importBody(customer, csv, 'text/csv');
    expect(result.error_count).toBe(1500);
    expect(result.errors).toHaveLength(1000);
    expect(result.errors[999]).toEqual({ line: 1001, hwid: 'bad id 999', error: HWID_RULE });
  });

  it('imports 10,000 rows in batches of 1000 while reading the body as it goes, and re-imports as unchanged', async () => {
    const customer = makeCustomer();
    const rows = Array.from({ length: 10_000 }, (_, i) => `fleet-${String(i).padStart(6, '0')}-${'x'.repeat(30)},t${i % 7} all`);
    const csv = `hwid,tags\n${rows.join('\n')}\n`;
    const useCase = moduleRef.get(ImportDevices);
    // Watch the batches and how much of the body had been read when each was applied.
    const originalGet = store.get.bind(store);
    let bytesRead = 0;
    store.get = async (key, range) => {
      const stream = (await originalGet(key, range)) as Readable;
      stream.on('data', (chunk: Buffer) => (bytesRead += chunk.length));
      return stream;
    };
    // Each transaction has repositories of its own: watch every one of them.
    const originalUpsert = DeviceImportRepository.prototype.upsertBatch;
    const batches: { size: number; readSoFar: number }[] = [];
    DeviceImportRepository.prototype.upsertBatch = async function (this: DeviceImportRepository, batch) {
      batches.push({ size: batch.rows.length, readSoFar: bytesRead });
      return originalUpsert.call(this, batch);
    };
    const heapBefore = process.memoryUsage().heapUsed;
    try {
      const { result } = await importBody(customer, csv, 'text/csv');
      expect(result).toEqual({ created: 10_000, updated: 0, unchanged: 0, errors: [], error_count: 0 });
    } finally {
      store.get = originalGet;
      DeviceImportRepository.prototype.upsertBatch = originalUpsert;
    }
    expect(useCase).toBeDefined();
    expect(batches.map((b) => b.size)).toEqual(Array(10).fill(1000));
    const total = Buffer.byteLength(csv);
    expect(batches[0].readSoFar).toBeLessThan(total / 4); // not read whole before the first batch
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
    const count = await dataSource.query(
      `SELECT count(*)::int AS devices, (SELECT count(*)::int FROM registry.device_tag WHERE customer_id = $1) AS tags FROM registry.device WHERE customer_id = $1`,
      [customer.id],
    );
    expect(count[0]).toEqual({ devices: 10_000, tags: 20_000 });
    const again = await importBody(customer, csv, 'text/csv');
    expect(again.result).toMatchObject({ created: 0, updated: 0, unchanged: 10_000 });

    // the lookup is a primary-key point lookup, never a scan
    await dataSource.query('ANALYZE registry.device');
    const plan: { 'QUERY PLAN': string }[] = await dataSource.query(`EXPLAIN SELECT status, tags FROM registry.device WHERE customer_id = $1 AND hwid = $2`, [
      customer.id,
      'fleet-000001',
    ]);
    const text = plan.map((p) => p['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Index Scan using device_pkey/);
    expect(text).not.toMatch(/Seq Scan/);
    const hwid42 = rows[42].split(',')[0];
    expect(await registry.lookupDevice({ customerId: customer.id, hwid: hwid42 })).toEqual({
      status: 'active',
      tags: ['all', 't0'],
      bucket: rolloutBucket(hwid42),
    });

    // the batched lookup of the update check's cache misses uses the same index
    const batchPlan: { 'QUERY PLAN': string }[] = await dataSource.query(
      `EXPLAIN SELECT hwid, status, tags FROM registry.device WHERE customer_id = $1 AND hwid = ANY($2::text[])`,
      [customer.id, ['fleet-000001', 'fleet-000002', 'fleet-000003']],
    );
    expect(batchPlan.map((p) => p['QUERY PLAN']).join('\n')).toMatch(/Index (Only )?Scan using device_pkey|Bitmap Index Scan on device_pkey/);
  });
});

describe('messages for other apps', () => {
  it('looks a device up: status, tags and rollout bucket, null when unknown or impossible; 400 for a customer id that is not a UUID', async () => {
    const customer = makeCustomer();
    await create(customer, { hwid: 'L', tags: ['b', 'a'] });
    expect(await registry.lookupDevice({ customerId: customer.id, hwid: 'L' })).toEqual({ status: 'active', tags: ['a', 'b'], bucket: rolloutBucket('L') });
    expect(await registry.lookupDevice({ customerId: customer.id, hwid: 'l' })).toBeNull(); // case-sensitive
    expect(await registry.lookupDevice({ customerId: customer.id, hwid: 'no space' })).toBeNull();
    expect(await codeOf(registry.lookupDevice({ customerId: 'nope', hwid: 'L' }))).toBe(ErrorCode.BadRequest);
  });

  it("looks many devices of one customer up at once: answers in the order asked, null for unknown, impossible and other customers' devices", async () => {
    const [customer, other] = [makeCustomer(), makeCustomer()];
    await create(customer, { hwid: 'L', tags: ['b', 'a'] });
    await create(customer, { hwid: 'M', tags: [] });
    await create(other, { hwid: 'N', tags: ['x'] });
    expect(await registry.lookupDevices({ customerId: customer.id, hwids: ['M', 'l', 'no space', 'N', 'L', 'M'] })).toEqual([
      { status: 'active', tags: [], bucket: rolloutBucket('M') },
      null,
      null,
      null,
      { status: 'active', tags: ['a', 'b'], bucket: rolloutBucket('L') },
      { status: 'active', tags: [], bucket: rolloutBucket('M') },
    ]);
    expect(await registry.lookupDevices({ customerId: customer.id, hwids: [] })).toEqual([]);
    expect(await registry.lookupDevices({ customerId: customer.id, hwids: [42, null] as unknown as string[] })).toEqual([null, null]);
    expect(await codeOf(registry.lookupDevices({ customerId: 'nope', hwids: ['L'] }))).toBe(ErrorCode.BadRequest);
    expect(await codeOf(registry.lookupDevices({ customerId: customer.id, hwids: 'L' as unknown as string[] }))).toBe(ErrorCode.BadRequest);
    expect(
      await codeOf(registry.lookupDevices({ customerId: customer.id, hwids: Array.from({ length: MAX_DEVICE_LOOKUP_BATCH + 1 }, (_, i) => `d${i}`) })),
    ).toBe(ErrorCode.BadRequest);
  });

  it('counts, renames (merging) and deletes tags idempotently, broadcasting one deviceChanged for the customer', async () => {
    const customer = makeCustomer();
    await create(customer, { hwid: 'd1', tags: ['old'] });
    await create(customer, { hwid: 'd2', tags: ['old', 'new'] });
    await create(customer, { hwid: 'd3', tags: ['new', 'z'] });
    await create(makeCustomer(), { hwid: 'other', tags: ['old'] });
    expect(await registry.tagCounts({ customerId: customer.id })).toEqual({ new: 2, old: 2, z: 1 });
    bus.clear();
    await clearOutbox(dataSource, 'registry');
    expect(await registry.renameTag({ customerId: customer.id, from: 'old', to: 'new' })).toEqual({ devices: 3 });
    expect((await get(customer, 'd1')).tags).toEqual(['new']);
    expect((await get(customer, 'd2')).tags).toEqual(['new']);
    expect(await registry.tagCounts({ customerId: customer.id })).toEqual({ new: 3, z: 1 });
    expect(bus.of(RegistryEvents.deviceChanged.subject)).toEqual([{ customerId: customer.id, hwid: null }]);
    bus.clear();
    await clearOutbox(dataSource, 'registry');
    expect(await registry.renameTag({ customerId: customer.id, from: 'old', to: 'new' })).toEqual({ devices: 3 });
    expect(bus.events).toEqual([]);
    expect(await registry.renameTag({ customerId: customer.id, from: 'new', to: 'A0' })).toEqual({ devices: 3 });
    expect((await get(customer, 'd3')).tags).toEqual(['A0', 'z']); // still byte order
    expect(await registry.deleteTag({ customerId: customer.id, tag: 'A0' })).toEqual({ devices: 3 });
    expect(await registry.deleteTag({ customerId: customer.id, tag: 'A0' })).toEqual({ devices: 0 });
    expect(await registry.tagCounts({ customerId: customer.id })).toEqual({ z: 1 });
    expect((await get(customer, 'd1')).tags).toEqual([]);
    expect(await codeOf(registry.renameTag({ customerId: customer.id, from: 'ok', to: 'not ok' }))).toBe(ErrorCode.BadRequest);
  });

  it('answers device counts and distinct tags per customer, zeros for a customer without devices', async () => {
    const a = makeCustomer();
    const empty = asCustomerId(randomUUID());
    await create(a, { hwid: '1', tags: ['x', 'y'] });
    await create(a, { hwid: '2', tags: ['y'] });
    await create(a, { hwid: '3' });
    expect(await registry.counts({ customerIds: [a.id, empty] })).toEqual({ [a.id]: { devices: 3, tags: ['x', 'y'] }, [empty]: { devices: 0, tags: [] } });
    expect(await registry.counts({ customerIds: [] })).toEqual({});
  });

  it('records sightings in one batch: last_seen_at only moves forward, the latest version wins, unknown devices are ignored', async () => {
    const customer = makeCustomer();
    const before = await create(customer, { hwid: 's1' });
    await create(customer, { hwid: 's2' });
    const t = (s: number) => new Date(Date.UTC(2026, 10, 21, 12, 0, s)).toISOString();
    await registry.devicesSeen({
      items: [
        { customerId: customer.id, hwid: 's1', fwVersion: '1.0', at: t(10) },
        { customerId: customer.id, hwid: 's1', fwVersion: '1.1', at: t(20) },
        { customerId: customer.id, hwid: 's2', fwVersion: '2.0', at: t(5) },
        { customerId: customer.id, hwid: 'ghost', fwVersion: '9', at: t(5) },
        { customerId: 'not-a-uuid', hwid: 's1', fwVersion: '9', at: t(99) },
        { customerId: customer.id, hwid: 's1', fwVersion: '9', at: 'yesterday' },
      ],
    });
    expect(await get(customer, 's1')).toMatchObject({ last_seen_at: t(20), last_fw_version: '1.1', updated_at: before.updated_at });
    await registry.devicesSeen({ items: [{ customerId: customer.id, hwid: 's1', fwVersion: '0.9', at: t(15) }] });
    expect(await get(customer, 's1')).toMatchObject({ last_seen_at: t(20), last_fw_version: '1.1' });
    await registry.devicesSeen({ items: [{ customerId: customer.id, hwid: 's2', fwVersion: '2.1', at: t(30) }] });
    expect(await get(customer, 's2')).toMatchObject({ last_seen_at: t(30), last_fw_version: '2.1' });
  });

  it('records the sightings of several customers in one batch, each on its own devices only', async () => {
    const [a, b] = [makeCustomer(), makeCustomer()];
    await create(a, { hwid: 'shared' });
    await create(b, { hwid: 'shared' });
    await create(b, { hwid: 'only-b' });
    const at = new Date(Date.UTC(2026, 10, 21, 13, 0, 0)).toISOString();
    // Customer ids in another case are the same customer; the order of the items does not matter.
    await registry.devicesSeen({
      items: [
        { customerId: b.id.toUpperCase(), hwid: 'only-b', fwVersion: 'b2', at },
        { customerId: a.id, hwid: 'shared', fwVersion: 'a1', at },
        { customerId: b.id, hwid: 'shared', fwVersion: 'b1', at },
      ],
    });
    expect(await get(a, 'shared')).toMatchObject({ last_seen_at: at, last_fw_version: 'a1' });
    expect(await get(b, 'shared')).toMatchObject({ last_seen_at: at, last_fw_version: 'b1' });
    expect(await get(b, 'only-b')).toMatchObject({ last_seen_at: at, last_fw_version: 'b2' });
  });

  it('applies sighting batches one at a time, and drops a batch when too many sightings wait', async () => {
    const customer = makeCustomer();
    await create(customer, { hwid: 'first' });
    await create(customer, { hwid: 'second' });
    await create(customer, { hwid: 'third' });
    const at = new Date(Date.UTC(2026, 10, 21, 14, 0, 0)).toISOString();
    const batch = (hwid: string, ghosts: number) => ({
      items: [
        { customerId: customer.id, hwid, fwVersion: hwid, at },
        ...Array.from({ length: ghosts }, (_, i) => ({ customerId: customer.id, hwid: `ghost-${hwid}-${i}`, fwVersion: '0', at })),
      ],
    });
    let running = 0;
    let mostAtOnce = 0;
    const real = DeviceSightingRepository.prototype.record;
    const spy = jest.spyOn(DeviceSightingRepository.prototype, 'record').mockImplementation(async function (this: DeviceSightingRepository, input) {
      mostAtOnce = Math.max(mostAtOnce, ++running);
      try {
        return await real.call(this, input);
      } finally {
        running--;
      }
    });
    try {
      // The first two fit under the bound together; the third does not while they wait.
      const half = Math.floor(MAX_WAITING_SIGHTINGS / 2) - 10;
      const results = await Promise.all([
        moduleRef.get(RecordSightings).execute(RecordSightingsCommand.create(batch('first', half))),
        moduleRef.get(RecordSightings).execute(RecordSightingsCommand.create(batch('second', 1_000))),
        moduleRef.get(RecordSightings).execute(RecordSightingsCommand.create(batch('third', half))),
      ]);
      expect(results).toEqual([1, 1, 0]);
      expect(mostAtOnce).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(await get(customer, 'first')).toMatchObject({ last_seen_at: at, last_fw_version: 'first' });
    expect(await get(customer, 'second')).toMatchObject({ last_seen_at: at, last_fw_version: 'second' });
    expect(await get(customer, 'third')).toMatchObject({ last_seen_at: null, last_fw_version: null });
    // Once they are applied, the next batch is taken again.
    expect(await moduleRef.get(RecordSightings).execute(RecordSightingsCommand.create(batch('third', 0)))).toBe(1);
  });
});

describe('migration', () => {
  it('reverts (down) and applies again', async () => {
    await moduleRef.close();
    await closeDatabases();
    // The migrations after the product line first (their own medium tests check what their downs do).
    expect(await revertLastMigration(throwaway.config, REGISTRY_DATABASE)).toBe('RegistryDeviceHwidCheck1765400000000');
    const before = await openAppDatabase(throwaway.config, { ...REGISTRY_DATABASE, migrate: false });
    const [check] = await before.query(`SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'device_hwid_check'`);
    expect(check.definition).toContain('{1,64}'); // the rule as the earlier migration wrote it
    await closeDatabases();
    const later = REGISTRY_DATABASE.migrations.slice(
      REGISTRY_DATABASE.migrations.findIndex((m) => m.name === 'RegistryDeviceProductLine1764600000000') + 1,
      -1,
    );
    for (const migration of later.reverse()) expect(await revertLastMigration(throwaway.config, REGISTRY_DATABASE)).toBe(migration.name);
    expect(await revertLastMigration(throwaway.config, REGISTRY_DATABASE)).toBe('RegistryDeviceProductLine1764600000000');
    expect(await revertLastMigration(throwaway.config, REGISTRY_DATABASE)).toBe('RegistryOutbox1764400000000');
    expect(await revertLastMigration(throwaway.config, REGISTRY_DATABASE)).toBe('RegistryDevices1764000000000');
    const reopened = await openAppDatabase(throwaway.config, { ...REGISTRY_DATABASE, migrate: false });
    expect(
      await reopened.query(`SELECT to_regclass('registry.device') AS t, to_regclass('registry.device_tag') AS u, to_regclass('registry.outbox') AS o`),
    ).toEqual([{ t: null, u: null, o: null }]);
    await closeDatabases();
    const migrated = await openAppDatabase(throwaway.config, REGISTRY_DATABASE);
    expect(await migrated.query(`SELECT count(*)::int AS n FROM registry.device`)).toEqual([{ n: 0 }]);
  });
});
