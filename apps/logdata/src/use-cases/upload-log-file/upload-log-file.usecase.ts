import { Inject, Injectable } from '@nestjs/common';
import { type LogFileUploadResult, ServiceError, type StagedFile } from '@app/contracts';
import { JsonLogger, type LogRequest, ObjectStore } from '@app/infra';
import { toLogFileDto } from '../../dtos/log-file.dto.js';
import type { LogFileEntity } from '../../entities/log-file.entity.js';
import { LogFileRepository } from '../../repositories/log-file.repository.js';
import type { UploadLogFileCommand } from './upload-log-file.command.js';

/** Rounds of insert-then-read before giving up (only a row vanishing between the two repeats one). */
const MAX_ROUNDS = 3;

/**
 * Write-once upload. The database decides: INSERT ... ON CONFLICT DO NOTHING on
 * (customer_id, name). The winner keeps the staged object as the file's object (its key becomes
 * object_key: no copy, the body never passes through this process). Every other outcome
 * (identical re-upload, conflict, error) deletes the staged object, unless the stored row
 * already points at that very key (a retried message), in which case it is the file.
 */
@Injectable()
export class UploadLogFile {
  private readonly logger = new JsonLogger('logdata');

  constructor(
    @Inject(LogFileRepository) private readonly repository: LogFileRepository,
    @Inject(ObjectStore) private readonly store: ObjectStore,
  ) {}

  async execute(command: UploadLogFileCommand, request: LogRequest): Promise<LogFileUploadResult> {
    const log = this.logger.forRequest(request);
    const { customerId, name, staged } = command;
    try {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const inserted = await this.repository.insertIfAbsent({
          customerId,
          name,
          objectKey: staged.key,
          sizeBytes: staged.sizeBytes,
          sha256: staged.sha256,
          contentType: command.contentType,
          uploadedBy: command.uploadedBy,
        });
        if (inserted) return { created: true, file: toLogFileDto(inserted) };

        const existing = await this.repository.findByName({ customerId, name });
        if (!existing) continue; // the row that blocked the insert is gone again: decide anew
        await this.discardUnless(existing, staged, log);
        if (sameContent(existing, staged)) return { created: false, file: toLogFileDto(existing) };
        throw ServiceError.conflict('log file already exists with different content');
      }
      await this.discard(staged, log);
      throw ServiceError.unavailable('log file upload could not be completed, try again');
    } catch (err) {
      if (!ServiceError.is(err)) await this.discardAfterError(command, log);
      throw err;
    }
  }

  /** Deletes the staged object unless the stored row owns it. */
  private async discardUnless(existing: LogFileEntity, staged: StagedFile, log: JsonLogger): Promise<void> {
    if (existing.objectKey !== staged.key) await this.discard(staged, log);
  }

  /**
   * After an unexpected error the insert may or may not have committed (e.g. the connection
   * dropped after COMMIT). Look before deleting: a file row must never point at a deleted object.
   * When the database cannot tell, the object stays (logged with its key) rather than risk that.
   */
  private async discardAfterError(command: UploadLogFileCommand, log: JsonLogger): Promise<void> {
    let existing: LogFileEntity | null;
    try {
      existing = await this.repository.findByName({ customerId: command.customerId, name: command.name });
    } catch (err) {
      log.write('warn', 'staged log file kept: could not check whether it was stored', {
        key: command.staged.key,
        error: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    if (existing) await this.discardUnless(existing, command.staged, log);
    else await this.discard(command.staged, log);
  }

  /** Best effort: a failed delete is logged with the key, never hides the upload's outcome. */
  private async discard(staged: StagedFile, log: JsonLogger): Promise<void> {
    try {
      await this.store.delete(staged.key);
    } catch (err) {
      log.write('warn', 'could not delete staged log file', { key: staged.key, error: err instanceof Error ? err.message : String(err) });
    }
  }
}

function sameContent(existing: LogFileEntity, staged: StagedFile): boolean {
  return existing.sha256 === staged.sha256 && existing.sizeBytes === staged.sizeBytes;
}
