import { beforeEach, describe, expect, it } from '@jest/globals';
import { ErrorCode, FirmwareErrors } from '@app/contracts';
import { configureLogging, JsonLogger, type ObjectStore } from '@app/infra';
import { type WriteOnceUpload, WriteOnceUploads } from './write-once-upload.js';

const logLines: Record<string, unknown>[] = [];
configureLogging({ level: 'debug', sink: (line) => logLines.push(JSON.parse(line) as Record<string, unknown>) });

interface Row {
  readonly key: string;
  readonly sha256: string;
}

/** Only delete() is used by the helper. */
class Objects {
  readonly deleted: string[] = [];
  failDeletes = false;
  async delete(key: string): Promise<void> {
    if (this.failDeletes) throw new Error('object store unavailable');
    this.deleted.push(key);
  }
}

const messages = {
  unavailable: FirmwareErrors.build_upload_incomplete,
  deleteFailed: 'could not delete staged file',
  keptUnknown: 'staged file kept: could not check whether it was stored',
};

describe('WriteOnceUploads', () => {
  let objects: Objects;
  let uploads: WriteOnceUploads;
  let rows: Map<string, Row>;
  const log = new JsonLogger('test').forRequest({ requestId: 'req-write-once' });

  const upload = (name: string, key: string, sha256: string, overrides: Partial<WriteOnceUpload<Row>> = {}): WriteOnceUpload<Row> => ({
    stagedKeys: [key, `${key}-notes`],
    insertIfAbsent: async () => {
      if (rows.has(name)) return null;
      const row = { key, sha256 };
      rows.set(name, row);
      return row;
    },
    findExisting: async () => rows.get(name) ?? null,
    ownedKeys: (row) => [row.key, `${row.key}-notes`],
    sameContent: (row) => row.sha256 === sha256,
    ...overrides,
  });

  beforeEach(() => {
    objects = new Objects();
    uploads = new WriteOnceUploads(objects as unknown as ObjectStore, messages);
    rows = new Map();
    logLines.length = 0;
  });

  it('creates a new name and keeps its staged objects', async () => {
    expect(await uploads.store(upload('a', 'k1', 'x'), log)).toEqual({ kind: 'created', row: { key: 'k1', sha256: 'x' } });
    expect(objects.deleted).toEqual([]);
  });

  it('answers identical and conflict with the stored row, deleting the new staged objects', async () => {
    await uploads.store(upload('a', 'k1', 'x'), log);
    expect(await uploads.store(upload('a', 'k2', 'x'), log)).toMatchObject({ kind: 'identical', row: { key: 'k1' } });
    expect(await uploads.store(upload('a', 'k3', 'y'), log)).toMatchObject({ kind: 'conflict', row: { key: 'k1' } });
    expect(objects.deleted).toEqual(['k2', 'k2-notes', 'k3', 'k3-notes']);
  });

  it('never deletes the objects the stored row owns (a retried message)', async () => {
    await uploads.store(upload('a', 'k1', 'x'), log);
    expect(await uploads.store(upload('a', 'k1', 'x'), log)).toMatchObject({ kind: 'identical' });
    expect(objects.deleted).toEqual([]);
  });

  it('after an unexpected error deletes only when nothing was stored, and keeps them when the database cannot tell', async () => {
    const boom = async (): Promise<Row | null> => {
      throw new Error('connection reset');
    };
    await expect(uploads.store(upload('a', 'k1', 'x', { insertIfAbsent: boom }), log)).rejects.toThrow('connection reset');
    expect(objects.deleted).toEqual(['k1', 'k1-notes']);
    await expect(uploads.store(upload('b', 'k2', 'x', { insertIfAbsent: boom, findExisting: boom }), log)).rejects.toThrow('connection reset');
    expect(objects.deleted).toEqual(['k1', 'k1-notes']);
    expect(logLines).toContainEqual(expect.objectContaining({ level: 'warn', msg: messages.keptUnknown, key: 'k2', request_id: 'req-write-once' }));
  });

  it('decides again when the blocking row vanished, and gives up with 503 after a few rounds', async () => {
    let inserts = 0;
    const flaky = upload('a', 'k1', 'x');
    const original = flaky.insertIfAbsent;
    const outcome = await uploads.store({ ...flaky, insertIfAbsent: async () => (++inserts < 2 ? null : original()) }, log);
    expect(outcome.kind).toBe('created');
    expect(inserts).toBe(2);
    await expect(uploads.store(upload('b', 'k2', 'x', { insertIfAbsent: async () => null, findExisting: async () => null }), log)).rejects.toMatchObject({
      code: ErrorCode.Unavailable,
      reason: 'build_upload_incomplete',
      message: 'firmware upload could not be completed, try again',
    });
    expect(objects.deleted).toEqual(['k2', 'k2-notes']);
  });

  it('does not let a failing delete hide the outcome', async () => {
    await uploads.store(upload('a', 'k1', 'x'), log);
    objects.failDeletes = true;
    expect(await uploads.store(upload('a', 'k2', 'x'), log)).toMatchObject({ kind: 'identical' });
    expect(logLines).toContainEqual(expect.objectContaining({ msg: messages.deleteFailed, key: 'k2', request_id: 'req-write-once' }));
  });
});
