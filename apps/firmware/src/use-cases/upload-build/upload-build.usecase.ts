import { Inject, Injectable } from '@nestjs/common';
import {
  type EndpointCall,
  FirmwareErrors,
  type FirmwareUploadParams,
  type FirmwareUploadQuery,
  type FirmwareUploadResult,
  type RequestContext,
  requireTenant,
  type StagedFile,
} from '@app/contracts';
import { JsonLogger, ObjectStore, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG, WriteOnceUploads } from '@app/platform';
import { type BuildValues, resolveBuildValues } from '../../domain/build-values.js';
import { toFirmwareDto } from '../../domain/build-view.js';
import { versionKey } from '../../domain/version-order.js';
import { scanWhatStrings, type WhatStringScan } from '../../domain/what-strings.js';
import type { Build } from '../../domain/build.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { FirmwareChanges } from '../../services/firmware-changes.js';
import { UploadBuildCommand } from './upload-build.command.js';

/**
 * A firmware upload. The staged binary is read back from the object store and scanned for
 * what strings (bounded memory), the values are decided (path, query, what string), then the
 * build is stored write-once (WriteOnceUploads) on its identity (hw_name, hw_version,
 * fw_name, fw_version, fw_type): the winner keeps the staged objects as the build's binary and
 * notes (no copy); an identical re-upload answers the stored build; different content is 409.
 * A refused upload (400, 413, 422) deletes the staged objects.
 */
@Injectable()
export class UploadBuildUseCase {
  private readonly logger = new JsonLogger('firmware');
  private readonly uploads: WriteOnceUploads;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(ObjectStore) private readonly objects: ObjectStore,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
  ) {
    this.uploads = new WriteOnceUploads(objects, {
      unavailable: FirmwareErrors.build_upload_incomplete,
      deleteFailed: 'could not delete a staged firmware upload',
      keptUnknown: 'staged firmware kept: could not check whether it was stored',
    });
  }

  async executeForRequest(call: EndpointCall<FirmwareUploadParams, FirmwareUploadQuery, undefined>): Promise<FirmwareUploadResult> {
    let command: UploadBuildCommand;
    try {
      command = UploadBuildCommand.create({
        customer: requireTenant(call.ctx).customer,
        actor: call.ctx.actor,
        params: call.params,
        query: call.query,
        files: call.files,
        maxBytes: this.config.firmwareMaxBytes,
      });
    } catch (err) {
      // The app owns the staged objects from the moment it is called: a refused upload deletes them.
      await Promise.all(UploadBuildCommand.stagedKeys(call.files).map((key) => this.objects.delete(key).catch(() => undefined)));
      throw err;
    }
    return this.execute(command, call.ctx);
  }

  async execute(command: UploadBuildCommand, ctx: RequestContext): Promise<FirmwareUploadResult> {
    const log = this.logger.forRequest(ctx);
    const stagedKeys = command.notes ? [command.firmware.key, command.notes.key] : [command.firmware.key];
    let values: BuildValues;
    try {
      values = resolveBuildValues(command.declared, command.whatIndex, await this.scan(command.firmware), new Date());
    } catch (err) {
      await this.uploads.discardAll(stagedKeys, log);
      throw err;
    }
    const identity = {
      customerId: command.customerId,
      hwName: command.hwName,
      hwVersion: command.hwVersion,
      fwName: command.fwName,
      fwVersion: values.fwVersion,
      fwType: values.fwType,
    };
    const builds = this.store.repos.builds;
    const outcome = await this.uploads.store<Build>(
      {
        stagedKeys,
        insertIfAbsent: () =>
          builds.insertIfAbsent({
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
          }),
        findExisting: () => builds.findByIdentity(identity),
        ownedKeys: (existing) => [existing.objectKey, existing.notes?.objectKey],
        sameContent: (existing) => existing.sha256 === command.firmware.sha256 && existing.sizeBytes === command.firmware.sizeBytes,
      },
      log,
    );
    if (outcome.kind === 'conflict') {
      throw FirmwareErrors.build_conflict();
    }
    if (outcome.kind === 'identical') return { created: false, build: toFirmwareDto(outcome.row) };
    const build = toFirmwareDto(outcome.row);
    this.changes.changed(command.customerId);
    await this.changes.audit(ctx, 'firmware.create', { type: 'firmware', id: build.id }, null, build);
    return { created: true, build };
  }

  private async scan(file: StagedFile): Promise<WhatStringScan> {
    const stream = await this.objects.get(file.key);
    if (!stream) throw FirmwareErrors.firmware_unreadable();
    return scanWhatStrings(stream);
  }
}
