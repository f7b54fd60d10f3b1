import { Inject, Injectable } from '@nestjs/common';
import { type EndpointCall, type LogFileCustomerQuery, type LogFileParams, type LogFileUploadResult, LogdataErrors, requireTenant } from '@app/contracts';
import { JsonLogger, type LogRequest, ObjectStore } from '@app/infra';
import { WriteOnceUploads } from '@app/platform';
import { toLogFileDto } from '../../domain/log-file-view.js';
import type { StoredLogFile } from '../../domain/log-file.js';
import { LogdataStore } from '../../repositories/logdata.store.js';
import { UploadLogFileCommand } from './upload-log-file.command.js';

/**
 * PUT /logdata/{name}: a write-once upload (WriteOnceUploads). The database decides with
 * INSERT ... ON CONFLICT DO NOTHING on (customer_id, name); the winner keeps the staged object
 * as the file's object (its key becomes object_key). An identical re-upload answers the stored
 * record; different content under a taken name is 409.
 */
@Injectable()
export class UploadLogFileUseCase {
  private readonly logger = new JsonLogger('logdata');
  private readonly uploads: WriteOnceUploads;

  constructor(
    @Inject(LogdataStore) private readonly store: LogdataStore,
    @Inject(ObjectStore) private readonly objects: ObjectStore,
  ) {
    this.uploads = new WriteOnceUploads(objects, {
      unavailable: LogdataErrors.log_file_upload_incomplete,
      deleteFailed: 'could not delete staged log file',
      keptUnknown: 'staged log file kept: could not check whether it was stored',
    });
  }

  async executeForRequest(call: EndpointCall<LogFileParams, LogFileCustomerQuery, undefined>): Promise<LogFileUploadResult> {
    let command: UploadLogFileCommand;
    try {
      command = UploadLogFileCommand.create({
        customer: requireTenant(call.ctx).customer,
        name: call.params?.name,
        actor: call.ctx.actor,
        file: call.file,
        contentType: call.contentType,
      });
    } catch (err) {
      // The app owns the staged object from the moment it is called: a refused upload deletes it.
      if (call.file?.key) await this.objects.delete(call.file.key).catch(() => undefined);
      throw err;
    }
    return this.execute(command, call.ctx);
  }

  async execute(command: UploadLogFileCommand, request: LogRequest): Promise<LogFileUploadResult> {
    const { customerId, name, staged } = command;
    const files = this.store.repos.files;
    const outcome = await this.uploads.store<StoredLogFile>(
      {
        stagedKeys: [staged.key],
        insertIfAbsent: () =>
          files.insertIfAbsent({
            customerId,
            name,
            objectKey: staged.key,
            sizeBytes: staged.sizeBytes,
            sha256: staged.sha256,
            contentType: command.contentType,
            uploadedBy: command.uploadedBy,
          }),
        findExisting: () => files.findByName({ customerId, name }),
        ownedKeys: (existing) => [existing.objectKey],
        sameContent: (existing) => existing.sha256 === staged.sha256 && existing.sizeBytes === staged.sizeBytes,
      },
      this.logger.forRequest(request),
    );
    if (outcome.kind === 'conflict') throw LogdataErrors.log_file_conflict();
    return { created: outcome.kind === 'created', file: toLogFileDto(outcome.row) };
  }
}
