import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import fc from 'fast-check';
import {
  type CustomerRef,
  ErrorCode,
  type EventDef,
  FirmwareEvents,
  IdentityMessages,
  type MessageDef,
  RegistryMessages,
  ServiceError,
  type StagedFile,
  type UpdateCheckResult,
  type UpdateItem,
} from '@app/contracts';
import { closeDatabases, configureLogging, FilesystemObjectStore, InProcessJobQueue, JobQueue, MessageBus, ObjectStore, openAppDatabase } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { DataSource } from 'typeorm';
import { makeCall, makeContext, makeCustomer, outboxPayloads } from '@app/testing';
import { compareVersions, versionKey } from '../../apps/firmware/src/domain/version-order.js';
import { FIRMWARE_DATABASE, FIRMWARE_PROVIDERS, UPDATE_CHECK_PROVIDERS } from '../../apps/firmware/src/firmware.module.js';
import type { BuildRepository } from '../../apps/firmware/src/repositories/build.repository.js';
import { FirmwareStore } from '../../apps/firmware/src/repositories/firmware.store.js';
import { ChangeBuildUseCase } from '../../apps/firmware/src/use-cases/change-build/change-build.usecase.js';
import { CountBuildsUseCase } from '../../apps/firmware/src/use-cases/count-builds/count-builds.usecase.js';
import { DeleteTagCommand } from '../../apps/firmware/src/use-cases/delete-tag/delete-tag.command.js';
import { DeleteTagUseCase } from '../../apps/firmware/src/use-cases/delete-tag/delete-tag.usecase.js';
import { EraseCustomerUseCase } from '../../apps/firmware/src/use-cases/erase-customer/erase-customer.usecase.js';
import { RenameTagCommand } from '../../apps/firmware/src/use-cases/rename-tag/rename-tag.command.js';
import { RenameTagUseCase } from '../../apps/firmware/src/use-cases/rename-tag/rename-tag.usecase.js';
import { UploadBuildUseCase } from '../../apps/firmware/src/use-cases/upload-build/upload-build.usecase.js';
import { TagSync, TAG_SYNC_QUEUE } from '../../apps/firmware/src/tags/tag-sync.js';
import { BUILD_INDEX_TTL_MS, BuildIndex } from '../../apps/firmware/src/update-check/build-index.js';
import { UPDATE_ANSWERS_MAX_BYTES, UpdateCheckService } from '../../apps/firmware/src/update-check/update-check.service.js';
import { FIRMWARE_TEST_ACTOR, makeFirmwareBinary, makeNewBuild } from '../../apps/firmware/test/factories.js';
import { createThrowaway, exists, stageFile, type Throwaway } from './logdata.support.js';

/**
 * The firmware app on the real PostgreSQL (a throwaway database; MEDIUM_DATABASE=embedded runs
 * it on PGlite) and the filesystem object store: repositories, the upload use case, the
 * update-check index, and the tag sync with a registry that fails and recovers.
 */

configureLogging({ sink: () => undefined });

/** A MessageBus whose other apps are functions of the test; broadcast events reach subscribers. */
async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

class FakeBus extends MessageBus {
  readonly sent: { pattern: string; payload: unknown }[] = [];
  readonly emitted: { subject: string; payload: unknown }[] = [];
  readonly handlers = new Map<string, (payload: any) => unknown>();
  private readonly listeners = new Map<string, Set<(payload: any) => void>>();

  serve<Req, Res>(message: MessageDef<Req, Res>, handler: (payload: Req) => Res | Promise<Res>): () => void {
    this.handlers.set(message.pattern, handler);
    return () => this.handlers.delete(message.pattern);
  }

  async send<Req, Res>(message: MessageDef<Req, Res>, payload: Req): Promise<Res> {
    this.sent.push({ pattern: message.pattern, payload });
    const handler = this.handlers.get(message.pattern);
    if (!handler) throw new ServiceError(ErrorCode.Unavailable, `${message.pattern.split('.')[0]} unavailable`);
    return JSON.parse(JSON.stringify((await handler(payload)) ?? null)) as Res;
  }

  emit<P>(event: EventDef<P>, payload: P): void {
    this.emitted.push({ subject: event.subject, payload });
    if (event.delivery === 'broadcast') for (const listener of this.listeners.get(event.subject) ?? []) listener(payload);
  }

  subscribe<P>(event: EventDef<P>, handler: (payload: P) => void): () => void {
    const set = this.listeners.get(event.subject) ?? new Set();
    set.add(handler as (payload: any) => void);
    this.listeners.set(event.subject, set);
    return () => set.delete(handler as (payload: any) => void);
  }
}

let throwaway: Throwaway;
let dataSource: DataSource;
let store: FilesystemObjectStore;
let bus: FakeBus;
let jobs: InProcessJobQueue;
let moduleRef: TestingModule;
let repository: BuildRepository;
let changeBuild: ChangeBuildUseCase;

const ctxOf = (c: CustomerRef) => makeContext(c, { actor: FIRMWARE_TEST_ACTOR, auditActor: FIRMWARE_TEST_ACTOR });

beforeAll(async () => {
  throwaway = await createThrowaway('firmware');
  dataSource = await openAppDatabase(throwaway.config, FIRMWARE_DATABASE);
  store = new FilesystemObjectStore(join(throwaway.dataDir, 'objects'));
  bus = new FakeBus();
  jobs = new InProcessJobQueue({ backoffMs: 50 });
  moduleRef = await Test.createTestingModule({
    providers: [
      ...UPDATE_CHECK_PROVIDERS,
      ...FIRMWARE_PROVIDERS,
      { provide: DataSource, useValue: dataSource },
      { provide: ObjectStore, useValue: store },
      { provide: MessageBus, useValue: bus },
      { provide: JobQueue, useValue: jobs },
      { provide: SERVICE_CONFIG, useValue: { ...throwaway.config, firmwareMaxBytes: 1024 * 1024, downloadLinkSecret: 'x'.repeat(40) } },
    ],
  }).compile();
  await moduleRef.init();
  repository = moduleRef.get(FirmwareStore).repos.builds;
  changeBuild = moduleRef.get(ChangeBuildUseCase);
});

afterAll(async () => {
  await moduleRef?.close();
  await jobs?.close();
  await closeDatabases();
  await throwaway?.dispose();
});

describe('BuildRepository', () => {
  it('the build identity decides concurrent inserts: exactly one wins', async () => {
    const c = makeCustomer();
    const results = await Promise.all(Array.from({ length: 10 }, () => repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild({ fwVersion: '7.0' }) })));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    // another fw_type is another identity
    expect(await repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild({ fwVersion: '7.0', fwType: 'EFI' }) })).not.toBeNull();
    expect(
      await repository.findByIdentity({ customerId: c.id, hwName: 'board', hwVersion: 'rev1', fwName: 'main', fwVersion: '7.0', fwType: 'AFI' }),
    ).not.toBeNull();
  });

  it('sorts by version in SQL (version_key) exactly as the version order does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.stringMatching(/^[0-9][0-9.a-z~-]{0,10}$/), { minLength: 2, maxLength: 25 }), async (versions) => {
        const c = makeCustomer();
        for (const fwVersion of versions)
          await repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild({ fwVersion, versionKey: versionKey(fwVersion) }) });
        const rows = await repository.list({ customerId: c.id, order: 'asc', limit: 100, offset: 0 });
        expect(rows.map((r) => r.fwVersion)).toEqual([...versions].sort(compareVersions));
      }),
      { numRuns: 15 },
    );
  });

  it('update: stale revision refused, a no-op keeps the revision, tags replaced and sorted', async () => {
    const c = makeCustomer();
    const build = (await repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild() }))!;
    expect(build.revision).toBe(1);
    const noop = await changeBuild.apply({ customerId: c.id, id: build.id, changes: { status: 'active' } });
    expect(noop.kind).toBe('unchanged');
    const updated = await changeBuild.apply({
      customerId: c.id,
      id: build.id,
      expectedRevision: 1,
      changes: { tags: ['z', 'a', 'z'], tagFilterDisabled: true },
    });
    expect(updated).toMatchObject({ kind: 'updated', after: { revision: 2, tags: ['a', 'z'], tagFilterDisabled: true } });
    expect(await changeBuild.apply({ customerId: c.id, id: build.id, expectedRevision: 1, changes: { status: 'withdrawn' } })).toMatchObject({ kind: 'stale' });
    expect(await changeBuild.apply({ customerId: makeCustomer().id, id: build.id, changes: { status: 'withdrawn' } })).toEqual({ kind: 'not-found' });
    expect((await repository.findById({ customerId: c.id, id: build.id }))!.tags).toEqual(['a', 'z']);
  });

  it("counts notes in stored bytes; erasing a customer removes its files and rows, idempotently, and nobody else's", async () => {
    const c = makeCustomer();
    const other = makeCustomer();
    const binary = await stageFile(store, 'binary bytes');
    const notes = await stageFile(store, 'some notes');
    const theirs = await stageFile(store, 'other binary');
    const mine = (await repository.insertIfAbsent({
      customerId: c.id,
      ...makeNewBuild({
        objectKey: binary.key,
        sizeBytes: binary.sizeBytes,
        notes: { objectKey: notes.key, sizeBytes: notes.sizeBytes, sha256: notes.sha256 },
      }),
    }))!;
    await changeBuild.apply({ customerId: c.id, id: mine.id, changes: { tags: ['beta'] } });
    await repository.insertIfAbsent({ customerId: other.id, ...makeNewBuild({ objectKey: theirs.key, sizeBytes: theirs.sizeBytes }) });
    const counts = await moduleRef.get(CountBuildsUseCase).execute({ customerIds: [c.id] });
    expect(counts[c.id].storedBytes).toBe(binary.sizeBytes + notes.sizeBytes);

    const erase = moduleRef.get(EraseCustomerUseCase);
    expect(await erase.execute({ customerId: c.id })).toEqual({ rows: 2, objects: 2 });
    expect(await exists(store, binary.key)).toBe(false);
    expect(await exists(store, notes.key)).toBe(false);
    expect(await exists(store, theirs.key)).toBe(true);
    expect(await repository.findById({ customerId: c.id, id: mine.id })).toBeNull();
    expect((await moduleRef.get(CountBuildsUseCase).execute({ customerIds: [other.id] }))[other.id].firmware).toBe(1);
    expect(await erase.execute({ customerId: c.id })).toEqual({ rows: 0, objects: 0 });
  });

  it('concurrent PATCHes with the same If-Match revision: one applies, the others are stale', async () => {
    const c = makeCustomer();
    const build = (await repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild() }))!;
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => changeBuild.apply({ customerId: c.id, id: build.id, expectedRevision: 1, changes: { tags: [`t${i}`] } })),
    );
    expect(results.filter((r) => r.kind === 'updated')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'stale')).toHaveLength(4);
  });

  it('rename merges and records the operation; delete removes; counts; active builds; downloads', async () => {
    const c = makeCustomer();
    const one = (await repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild({ fwVersion: '1' }) }))!;
    const two = (await repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild({ fwVersion: '2' }) }))!;
    await changeBuild.apply({ customerId: c.id, id: one.id, changes: { tags: ['old', 'new'] } });
    await changeBuild.apply({ customerId: c.id, id: two.id, changes: { tags: ['old', 'x'], status: 'withdrawn' } });
    const renamed = await moduleRef.get(RenameTagUseCase).applyToBuilds(RenameTagCommand.create({ customer: c, from: 'old', to: 'new' }));
    expect(renamed.changedBuilds).toBe(2);
    expect((await repository.findById({ customerId: c.id, id: one.id }))!.tags).toEqual(['new']);
    expect((await repository.findById({ customerId: c.id, id: two.id }))!).toMatchObject({ tags: ['new', 'x'], revision: 3 });
    expect(Object.fromEntries(await repository.tagCounts({ customerId: c.id }))).toEqual({ new: 2, x: 1 });
    const deleted = await moduleRef.get(DeleteTagUseCase).applyToBuilds(DeleteTagCommand.create({ customer: c, tag: 'x' }));
    expect(deleted.opId).toBeGreaterThan(renamed.opId);
    const ops = moduleRef.get(FirmwareStore).repos.tagSync;
    expect(await ops.nextPending({ customerId: c.id })).toMatchObject({ id: renamed.opId, kind: 'rename', tag: 'old', toTag: 'new' });
    expect((await repository.activeBuilds({ customerId: c.id })).map((b) => b.id)).toEqual([one.id]);
    const counts = await moduleRef.get(CountBuildsUseCase).execute({ customerIds: [c.id, randomUUID()] });
    // stored bytes: the binaries (10 bytes each in makeNewBuild) and notes (none here)
    expect(counts[c.id]).toEqual({ firmware: 2, storedBytes: one.sizeBytes + two.sizeBytes, tags: ['new'] });
    expect(Object.values(counts)[1]).toEqual({ firmware: 0, storedBytes: 0, tags: [] });
    expect(await repository.recordDownload({ customerId: c.id, id: one.id, kind: 'notes' })).toBe(true);
    expect(await repository.recordDownload({ customerId: c.id, id: one.id, kind: 'binary' })).toBe(true);
    expect(await repository.recordDownload({ customerId: makeCustomer().id, id: one.id, kind: 'binary' })).toBe(false);
    expect(await repository.findById({ customerId: c.id, id: one.id })).toMatchObject({ downloadCount: 1, notesDownloadCount: 1 });
  });
});

describe('upload', () => {
  const upload = (c: CustomerRef, files: Record<string, StagedFile>, query: Record<string, unknown> = {}) =>
    moduleRef
      .get(UploadBuildUseCase)
      .executeForRequest(makeCall(ctxOf(c), { params: { hw_name: 'board', hw_version: 'rev1', fw_name: 'main' }, query, files }));

  it('keeps the staged objects of a new build, deletes them for identical re-uploads, 409 and 422', async () => {
    const c = makeCustomer();
    const firmware = await stageFile(store, makeFirmwareBinary('1.0, 2026-11-20, AFI'), 'application/octet-stream');
    const notes = await stageFile(store, 'notes');
    const created = await upload(c, { firmware, notes });
    expect(created).toMatchObject({ created: true, build: { fw_version: '1.0', notes: { size_bytes: 5 } } });
    expect(await exists(store, firmware.key)).toBe(true);
    expect(await exists(store, notes.key)).toBe(true);

    const again = await stageFile(store, makeFirmwareBinary('1.0, 2026-11-20, AFI'));
    expect(await upload(c, { firmware: again })).toEqual({ created: false, build: created.build });
    expect(await exists(store, again.key)).toBe(false);

    const conflicting = await stageFile(store, Buffer.concat([makeFirmwareBinary('1.0, 2026-11-20, AFI'), Buffer.from('x')]));
    await expect(upload(c, { firmware: conflicting })).rejects.toMatchObject({ code: ErrorCode.Conflict });
    expect(await exists(store, conflicting.key)).toBe(false);

    const unparseable = await stageFile(store, makeFirmwareBinary('nonsense'));
    const unparseableNotes = await stageFile(store, 'n');
    await expect(upload(c, { firmware: unparseable, notes: unparseableNotes })).rejects.toMatchObject({ code: ErrorCode.Unprocessable });
    expect(await exists(store, unparseable.key)).toBe(false);
    expect(await exists(store, unparseableNotes.key)).toBe(false);

    const missingName = await stageFile(store, makeFirmwareBinary('2.0, 2026-11-20, AFI'));
    await expect(moduleRef.get(UploadBuildUseCase).executeForRequest(makeCall(ctxOf(c), { files: { firmware: missingName } }))).rejects.toMatchObject({
      code: ErrorCode.BadRequest,
    });
    expect(await exists(store, missingName.key)).toBe(false);
    // a retried message (the same staged key again) never deletes the build's own object
    expect((await upload(c, { firmware, notes })).created).toBe(false);
    expect(await exists(store, firmware.key)).toBe(true);
    expect(await exists(store, notes.key)).toBe(true);
  });

  it('announces a new build (firmware.changed) and audits it', async () => {
    const c = makeCustomer();
    bus.emitted.length = 0;
    await upload(c, { firmware: await stageFile(store, makeFirmwareBinary('1.0, 2026-11-20, AFI')) });
    expect(bus.emitted.find((e) => e.subject === FirmwareEvents.changed.subject)?.payload).toEqual({ customerId: c.id });
    expect((await outboxPayloads(dataSource, 'firmware', 'audit')).find((e) => e.action === 'firmware.create' && e.domain === c.domain)).toMatchObject({
      action: 'firmware.create',
      actor: 'token:t1',
      domain: c.domain,
    });
  });
});

describe('update check from memory', () => {
  const c = makeCustomer();
  let checks: UpdateCheckService;

  beforeAll(async () => {
    checks = moduleRef.get(UpdateCheckService);
    bus.handlers.set(IdentityMessages.resolveCustomer.pattern, (lookup: { domain?: string }) =>
      lookup.domain === c.domain ? { id: c.id, domain: c.domain, status: 'active', isSandbox: false } : null,
    );
    bus.handlers.set(RegistryMessages.lookupDevices.pattern, (req: { hwids: string[] }) =>
      req.hwids.map((hwid) => (hwid === 'dev-beta' ? { status: 'active', tags: ['beta'] } : null)),
    );
    await repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild({ fwVersion: '1.0', generalRelease: true }) });
    const tagged = (await repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild({ fwVersion: '1.1' }) }))!;
    await changeBuild.apply({ customerId: c.id, id: tagged.id, changes: { tags: ['beta'] } });
  });

  const itemsOf = (result: Extract<UpdateCheckResult, { kind: 'items' }>) => JSON.parse(result.body) as UpdateItem[];
  const call = (fwVersion: string, hwid?: string, headers: Record<string, string> = {}) =>
    checks.check(
      makeCall(ctxOf(c), {
        params: { domain: c.domain, hw_name: 'board', hw_version: 'rev1', fw_name: 'main', fw_version: fwVersion, ...(hwid ? { hwid } : {}) },
        query: { type: 'AFI' },
        headers,
      }),
    );

  it('loads the index once; further checks make no database query and no write', async () => {
    const first = await call('0.1', 'dev-beta');
    expect(first.kind === 'items' && itemsOf(first).map((i) => i.fw_version)).toEqual(['1.0', '1.1']);
    const queries = jest.spyOn(dataSource, 'createQueryRunner');
    for (let i = 0; i < 50; i++) await call('0.1', i % 2 ? 'dev-beta' : undefined);
    expect(queries).not.toHaveBeenCalled();
    queries.mockRestore();
  });

  it('a firmware.changed event (from any replica) drops the index; the next check sees the change', async () => {
    const before = await call('1.0');
    expect(before.kind === 'items' && itemsOf(before)).toEqual([]);
    const general = (await repository.insertIfAbsent({ customerId: c.id, ...makeNewBuild({ fwVersion: '1.2', generalRelease: true }) }))!;
    const cached = await call('1.0');
    expect(cached.kind === 'items' && itemsOf(cached)).toEqual([]); // still the cached index
    bus.emit(FirmwareEvents.changed, { customerId: c.id });
    const after = await call('1.0');
    expect(after.kind === 'items' && itemsOf(after).map((i) => i.id)).toEqual([general.id]);
    const notModified = await call('1.0', undefined, { 'if-none-match': after.etag });
    expect(notModified.kind).toBe('not-modified');
  });

  it('keeps answers within a memory budget, whatever the versions devices report', async () => {
    checks.maxAnswerBytes = 20_000;
    try {
      for (let i = 0; i < 200; i++) {
        const result = await call(`0.0.${i}`);
        expect(result.kind === 'items' && itemsOf(result).map((item) => item.fw_version)).toEqual(['1.0', '1.2']);
        expect(checks.keptAnswers.bytes).toBeLessThanOrEqual(20_000);
      }
      expect(checks.keptAnswers.count).toBeGreaterThan(1);
      expect(checks.keptAnswers.count).toBeLessThan(200);
    } finally {
      checks.maxAnswerBytes = UPDATE_ANSWERS_MAX_BYTES;
    }
  });

  it('an index past its minute answers at once while it is reloaded in the background', async () => {
    const index = moduleRef.get(BuildIndex);
    const d = makeCustomer();
    await repository.insertIfAbsent({ customerId: d.id, ...makeNewBuild({ fwVersion: '7.0', generalRelease: true }) });
    const first = (await index.get(d.id)) as { size: number };
    expect(first.size).toBe(1);
    await repository.insertIfAbsent({ customerId: d.id, ...makeNewBuild({ fwVersion: '7.1', generalRelease: true }) }); // no event: as if it was lost
    const realNow = index.now;
    index.now = () => realNow() + BUILD_INDEX_TTL_MS + 1;
    const reads = jest.spyOn(repository, 'activeBuilds');
    try {
      const stale = index.get(d.id);
      expect(stale).toBe(first); // not a promise: the check does not wait for the database
      expect(index.get(d.id)).toBe(first); // one reload in flight, not one per check
      await waitUntil(() => index.get(d.id) !== first);
      expect((index.get(d.id) as { size: number }).size).toBe(2);
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
      index.now = realNow;
    }
  });

  it('a load overtaken by an invalidation is not kept', async () => {
    const index = moduleRef.get(BuildIndex);
    const d = makeCustomer();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const original = repository.activeBuilds.bind(repository);
    const spy = jest.spyOn(repository, 'activeBuilds').mockImplementationOnce(async (q) => {
      const rows = await original(q);
      await gate;
      return rows;
    });
    const loading = index.get(d.id) as Promise<unknown>;
    await repository.insertIfAbsent({ customerId: d.id, ...makeNewBuild({ fwVersion: '5.0', generalRelease: true }) });
    index.invalidate(d.id);
    release();
    const loaded = (await loading) as { size: number };
    expect(loaded.size).toBe(1); // reloaded after the invalidation
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockRestore();
  });
});

describe('tag sync with the registry', () => {
  let sync: TagSync;
  let renameTag: RenameTagUseCase;
  let deleteTag: DeleteTagUseCase;
  const c = makeCustomer();
  const applied: string[] = [];

  beforeEach(() => {
    bus.handlers.delete(RegistryMessages.renameTag.pattern);
    bus.handlers.delete(RegistryMessages.deleteTag.pattern);
  });

  beforeAll(() => {
    sync = moduleRef.get(TagSync);
    renameTag = moduleRef.get(RenameTagUseCase);
    deleteTag = moduleRef.get(DeleteTagUseCase);
  });

  const registryUp = () => {
    bus.handlers.set(RegistryMessages.renameTag.pattern, (r: { from: string; to: string }) => {
      applied.push(`rename ${r.from} ${r.to}`);
      return { devices: 3 };
    });
    bus.handlers.set(RegistryMessages.deleteTag.pattern, (r: { tag: string }) => {
      applied.push(`delete ${r.tag}`);
      return { devices: 1 };
    });
  };
  const rename = (from: string, to: string) => renameTag.executeForRequest(makeCall(ctxOf(c), { params: { tag: from }, body: { to } }));
  const remove = (tag: string) => deleteTag.executeForRequest(makeCall(ctxOf(c), { params: { tag } }));

  it('applied at once when the registry answers: 200-style result with the device count', async () => {
    registryUp();
    expect(await rename('a', 'b')).toEqual({ tag: 'b', firmware: 0, devices: 3, pending: false });
    expect(applied).toEqual(['rename a b']);
  });

  it('pending while the registry is down; replayed in order by the job queue once it is back', async () => {
    applied.length = 0;
    expect(await rename('b', 'c')).toMatchObject({ pending: true, devices: null });
    expect(await remove('c')).toMatchObject({ pending: true, devices: null });
    expect(await moduleRef.get(FirmwareStore).repos.tagSync.nextPending({ customerId: c.id })).toMatchObject({ kind: 'rename', tag: 'b' });
    registryUp();
    for (let i = 0; i < 100 && (await moduleRef.get(FirmwareStore).repos.tagSync.nextPending({ customerId: c.id })); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await moduleRef.get(FirmwareStore).repos.tagSync.nextPending({ customerId: c.id })).toBeNull();
    expect(applied).toEqual(['rename b c', 'delete c']);
  });

  it('one replay at a time per customer (the lease)', async () => {
    const d = makeCustomer();
    const ops = moduleRef.get(FirmwareStore).repos.tagSync;
    expect(await ops.acquireLease({ customerId: d.id, owner: 'one', ttlMs: 60_000 })).toBe(true);
    expect(await ops.acquireLease({ customerId: d.id, owner: 'two', ttlMs: 60_000 })).toBe(false);
    expect((await sync.drain(d.id, 1000)).state).toBe('busy');
    await ops.releaseLease({ customerId: d.id, owner: 'one' });
    expect(await ops.acquireLease({ customerId: d.id, owner: 'two', ttlMs: 1 })).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(await ops.acquireLease({ customerId: d.id, owner: 'three', ttlMs: 60_000 })).toBe(true); // expired lease taken over
    expect(TAG_SYNC_QUEUE).toBe('firmware-tag-sync');
  });
});
