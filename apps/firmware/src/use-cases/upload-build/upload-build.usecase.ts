import { Inject, Injectable } from '@nestjs/common';
import { type FirmwareUploadResult, type RequestContext, ServiceError, type StagedFile } from '@app/contracts';
import { JsonLogger, ObjectStore } from '@app/infra';
import { resolveBuildValues } from '../../domain/build-values.js';
import { toFirmwareDto } from '../../domain/build-view.js';
import { versionKey } from '../../domain/version-order.js';
import { scanWhatStrings, type WhatStringScan } from '../../domain/what-strings.js';
import type { BuildEntity } from '../../entities/build.entity.js';
import { BuildRepository } from '../../repositories/build.repository.js';
import { FirmwareChanges } from '../../services/firmware-changes.js';
import type { UploadBuildCommand } from './upload-build.command.js';

/** Rounds of insert-then-read before giving up (only a row vanishing between the two repeats one; builds are never deleted). */
const MAX_ROUNDS = 3;

/**
 * A firmware upload. The staged binary is read back from the object store and scanned for
 * what strings (bounded memory), the values are decided (path, query, what string), then the
 * database decides: INSERT ... ON CONFLICT DO NOTHING on the build's identity. The winner
 * keeps the staged objects as the build's binary and notes (no copy). Every other outcome
 * (identical re-upload, 409, 422, error) deletes them, unless the stored build already points
 * at the very same key (a retried message), in which case they are the build's.
 */
@Injectable()
export class UploadBuild {
  private readonly logger = new JsonLogger('firmware');

  constructor(
    @Inject(BuildRepository) private readonly repository: BuildRepository,
    @Inject(ObjectStore) private readonly store: ObjectStore,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
  ) {}

  async execute(command: UploadBuildCommand, ctx: RequestContext): Promise<FirmwareUploadResult> {
    const log = this.logger.forRequest(ctx);
    let inserted: BuildEntity | null = null;
    let values: ReturnType<typeof resolveBuildValues> | null = null;
    try {
      values = resolveBuildValues(command.declared, command.whatIndex, await this.scan(command.firmware), new Date());
      const identity = {
        customerId: command.customerId,
        hwName: command.hwName,
        hwVersion: command.hwVersion,
        fwName: command.fwName,
        fwVersion: values.fwVersion,
        fwType: values.fwType,
      };
      for (let round = 0; round < MAX_ROUNDS; round++) {
        inserted = await this.repository.insertIfAbsent({
          ...identity,
          versionKey: versionKey(values.fwVersion),
          buildDate: values.buildDate,
          generalRelease: command.generalRelease,
          objectKey: command.firmware.key,
          sizeBytes: command.firmware.sizeBytes,
          sha256: command.firmware.sha256,
          whatString: values.whatString,
          notes: command.notes ? { objectKey: command.notes.key, sizeBytes: command.notes.sizeBytes, sha256: command.notes.sha256 } : null,
          uploadedBy: command.uploadedBy,
        });
        if (inserted) break;
        const existing = await this.repository.findByIdentity(identity);
        if (!existing) continue;
        await this.discardUnlessOwned(existing, command, log);
        if (existing.sha256 === command.firmware.sha256 && existing.sizeBytes === command.firmware.sizeBytes) {
          return { created: false, build: toFirmwareDto(existing) };
        }
        throw ServiceError.conflict('a build with this hw_name, hw_version, fw_name, fw_version and fw_type already exists with different content');
      }
      if (!inserted) {
        await this.discardAll(command, log);
        throw ServiceError.unavailable('firmware upload could not be completed, try again');
      }
    } catch (err) {
      if (ServiceError.is(err)) {
        if (!values || err.status === 422 || err.status === 400) await this.discardAll(command, log);
      } else {
        await this.discardAfterError(command, values, log);
      }
      throw err;
    }
    const build = toFirmwareDto(inserted);
    this.changes.changed(command.customerId);
    this.changes.audit(ctx, 'firmware.create', { type: 'firmware', id: build.id }, null, build as unknown as Record<string, unknown>);
    return { created: true, build };
  }

  private async scan(file: StagedFile): Promise<WhatStringScan> {
    const stream = await this.store.get(file.key);
    if (!stream) throw ServiceError.unavailable('the uploaded firmware could not be read back, try again');
    return scanWhatStrings(stream);
  }

  private async discardUnlessOwned(existing: BuildEntity, command: UploadBuildCommand, log: JsonLogger): Promise<void> {
    if (existing.objectKey !== command.firmware.key) await this.discard(command.firmware, log);
    if (command.notes && existing.notes?.objectKey !== command.notes.key) await this.discard(command.notes, log);
  }

  private async discardAll(command: UploadBuildCommand, log: JsonLogger): Promise<void> {
    await this.discard(command.firmware, log);
    if (command.notes) await this.discard(command.notes, log);
  }

  /**
   * After an unexpected error the insert may or may not have committed. Look before deleting:
   * a build must never point at a deleted object; when the database cannot tell, keep them.
   */
  private async discardAfterError(command: UploadBuildCommand, values: ReturnType<typeof resolveBuildValues> | null, log: JsonLogger): Promise<void> {
    if (!values) return this.discardAll(command, log);
    let existing: BuildEntity | null;
    try {
      existing = await this.repository.findByIdentity({
        customerId: command.customerId,
        hwName: command.hwName,
        hwVersion: command.hwVersion,
        fwName: command.fwName,
        fwVersion: values.fwVersion,
        fwType: values.fwType,
      });
    } catch (err) {
      log.warn('staged firmware kept: could not check whether it was stored', { key: command.firmware.key, error: err instanceof Error ? err.message : String(err) });
      return;
    }
    if (existing) await this.discardUnlessOwned(existing, command, log);
    else await this.discardAll(command, log);
  }

  /** Best effort: a failed delete is logged with the key, never hides the upload's outcome. */
  private async discard(file: StagedFile, log: JsonLogger): Promise<void> {
    try {
      await this.store.delete(file.key);
    } catch (err) {
      log.warn('could not delete a staged firmware upload', { key: file.key, error: err instanceof Error ? err.message : String(err) });
    }
  }
}
