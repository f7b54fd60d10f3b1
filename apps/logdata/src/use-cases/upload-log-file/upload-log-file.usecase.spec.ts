import { configureLogging } from '@app/infra';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { ErrorCode, ServiceError } from '@app/contracts';
import { makeCustomer } from '@app/testing';
import { makeLogName, MemoryObjectStore } from '../../../test/factories.js';
import { MemoryLogFileRepository } from '../../../test/memory-log-file.repository.js';
import { UploadLogFileCommand } from './upload-log-file.command.js';
import { UploadLogFileUseCase } from './upload-log-file.usecase.js';

const logLines: Record<string, unknown>[] = [];
configureLogging({ level: 'debug', sink: (line) => logLines.push(JSON.parse(line) as Record<string, unknown>) });

describe('UploadLogFileUseCase', () => {
  const customer = makeCustomer();
  let repository: MemoryLogFileRepository;
  let store: MemoryObjectStore;
  let useCase: UploadLogFileUseCase;
  const request = { requestId: 'req-upload-log-file' };

  const command = (name: string, content: string) => UploadLogFileCommand.create({ customer, name, actor: 'token:t1', file: store.stage(content) });

  beforeEach(() => {
    repository = new MemoryLogFileRepository();
    store = new MemoryObjectStore();
    useCase = new UploadLogFileUseCase(repository.asStore(), store);
  });

  it('stores a new name and keeps the staged object as the file object', async () => {
    const cmd = command(makeLogName(), 'first');
    const result = await useCase.execute(cmd, request);
    expect(result.created).toBe(true);
    expect(result.file).toMatchObject({ name: cmd.name, size_bytes: 5, sha256: cmd.staged.sha256, uploaded_by: 'token:t1', download_count: 0 });
    expect(store.objects.has(cmd.staged.key)).toBe(true);
    expect(store.deleted).toEqual([]);
  });

  it('answers an identical re-upload with the stored record and deletes the new staged object', async () => {
    const name = makeLogName();
    const first = await useCase.execute(command(name, 'same'), request);
    const again = command(name, 'same');
    const result = await useCase.execute(again, request);
    expect(result).toEqual({ created: false, file: first.file });
    expect(store.deleted).toEqual([again.staged.key]);
  });

  it('refuses different content with 409 and deletes the staged object', async () => {
    const name = makeLogName();
    const first = command(name, 'one');
    await useCase.execute(first, request);
    const second = command(name, 'two');
    await expect(useCase.execute(second, request)).rejects.toMatchObject({
      code: ErrorCode.Conflict,
      message: 'log file already exists with different content',
    });
    expect(store.objects.has(second.staged.key)).toBe(false);
    expect(store.objects.has(first.staged.key)).toBe(true);
  });

  it('never deletes the object of a stored file when the same staged key comes again (retried message)', async () => {
    const cmd = command(makeLogName(), 'retry');
    await useCase.execute(cmd, request);
    const result = await useCase.execute(cmd, request);
    expect(result.created).toBe(false);
    expect(store.objects.has(cmd.staged.key)).toBe(true);
    expect(store.deleted).toEqual([]);
  });

  it('deletes the staged object when the insert fails and nothing was stored', async () => {
    const cmd = command(makeLogName(), 'boom');
    repository.failures.insertIfAbsent = new Error('connection reset');
    await expect(useCase.execute(cmd, request)).rejects.toThrow('connection reset');
    expect(store.deleted).toEqual([cmd.staged.key]);
  });

  it('keeps the staged object when the database cannot say whether it was stored', async () => {
    const cmd = command(makeLogName(), 'unknown');
    repository.failures.insertIfAbsent = new Error('connection reset');
    repository.failures.findByName = new Error('database down');
    await expect(useCase.execute(cmd, request)).rejects.toThrow('connection reset');
    expect(store.objects.has(cmd.staged.key)).toBe(true);
    // The operator finds the kept object by the request that left it.
    expect(logLines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'staged log file kept: could not check whether it was stored',
        key: cmd.staged.key,
        request_id: request.requestId,
      }),
    );
  });

  it('does not let a failing delete hide the outcome', async () => {
    const name = makeLogName();
    await useCase.execute(command(name, 'a'), request);
    store.failDeletes = true;
    const again = command(name, 'a');
    await expect(useCase.execute(again, request)).resolves.toMatchObject({ created: false });
    expect(logLines).toContainEqual(expect.objectContaining({ msg: 'could not delete staged log file', key: again.staged.key, request_id: request.requestId }));
    await expect(useCase.execute(command(name, 'b'), request)).rejects.toBeInstanceOf(ServiceError);
  });

  it('decides again when the blocking row vanished, and gives up with 503 after a few rounds', async () => {
    const cmd = command(makeLogName(), 'vanishing');
    const original = repository.insertIfAbsent.bind(repository);
    let inserts = 0;
    repository.insertIfAbsent = async (file) => {
      inserts++;
      return inserts < 2 ? null : original(file);
    };
    await expect(useCase.execute(cmd, request)).resolves.toMatchObject({ created: true });
    expect(inserts).toBe(2);

    const stuck = command(makeLogName(), 'stuck');
    repository.insertIfAbsent = async () => null;
    await expect(useCase.execute(stuck, request)).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    expect(store.objects.has(stuck.staged.key)).toBe(false);
  });
});
