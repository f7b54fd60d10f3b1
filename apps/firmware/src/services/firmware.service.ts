import { Inject, Injectable } from '@nestjs/common';
import {
  asCustomerId,
  type CustomerId,
  type EndpointCall,
  ErrorCode,
  FIRMWARE_LIST_DEFAULT_LIMIT,
  FIRMWARE_LIST_MAX_LIMIT,
  type FileRef,
  type FirmwareCustomerQuery,
  type FirmwareDownloaded,
  type FirmwareIdParams,
  type FirmwareListQuery,
  type FirmwarePage,
  type FirmwarePatch,
  type FirmwareTagParams,
  type FirmwareUploadParams,
  type FirmwareUploadQuery,
  type FirmwareUploadResult,
  type FirmwareWithEtag,
  FW_TYPES,
  MAX_TAGS_PER_BUILD,
  type ParseResult,
  requireTenant,
  ServiceError,
  type TagSet,
  type TenantRequestContext,
} from '@app/contracts';
import { JsonLogger, ObjectStore, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { etagOf, revisionFromIfMatch, toFileRef, toFirmwareDto } from '../domain/build-view.js';
import type { BuildEntity } from '../entities/build.entity.js';
import { type BuildChanges, BuildRepository, type BuildUpdate } from '../repositories/build.repository.js';
import { ParseBinary } from '../use-cases/parse-binary/parse-binary.usecase.js';
import { UpdateBuildCommand, checkTags } from '../use-cases/update-build/update-build.command.js';
import { UploadBuildCommand } from '../use-cases/upload-build/upload-build.command.js';
import { UploadBuild } from '../use-cases/upload-build/upload-build.usecase.js';
import { FirmwareChanges } from './firmware-changes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type IdCall = EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>;

/** The firmware app's operations on builds; the tenant always comes from the request context. */
@Injectable()
export class FirmwareService {
  private readonly logger = new JsonLogger('firmware');

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(BuildRepository) private readonly repository: BuildRepository,
    @Inject(UploadBuild) private readonly uploadBuild: UploadBuild,
    @Inject(ParseBinary) private readonly parseBinary: ParseBinary,
    @Inject(ObjectStore) private readonly store: ObjectStore,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
  ) {}

  async upload(call: EndpointCall<FirmwareUploadParams, FirmwareUploadQuery, undefined>): Promise<FirmwareUploadResult> {
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
      await Promise.all(UploadBuildCommand.stagedKeys(call.files).map((key) => this.store.delete(key).catch(() => undefined)));
      throw err;
    }
    return this.uploadBuild.execute(command, call.ctx);
  }

  parse(call: EndpointCall<Record<string, never>, FirmwareCustomerQuery, undefined>): Promise<ParseResult> {
    requireTenant(call.ctx);
    const others = Object.entries(call.files ?? {}).filter(([name]) => name !== 'firmware');
    for (const [, file] of others) void this.store.delete(file.key).catch(() => undefined);
    return this.parseBinary.execute(call.files?.firmware, this.config.firmwareMaxBytes, call.ctx);
  }

  async list(call: EndpointCall<Record<string, never>, FirmwareListQuery, undefined>): Promise<FirmwarePage> {
    const customerId = requireTenant(call.ctx).customer.id;
    const query = call.query ?? ({} as FirmwareListQuery);
    const limit = integerIn(query.limit, FIRMWARE_LIST_DEFAULT_LIMIT, 1, FIRMWARE_LIST_MAX_LIMIT, `limit must be an integer from 1 to ${FIRMWARE_LIST_MAX_LIMIT}`);
    const offset = integerIn(query.offset, 0, 0, Number.MAX_SAFE_INTEGER, 'offset must be a non-negative integer');
    if (query.fw_type !== undefined && !(FW_TYPES as readonly string[]).includes(query.fw_type)) throw ServiceError.badRequest('fw_type must be AFI, EFI or MFI');
    if (query.status !== undefined && query.status !== 'active' && query.status !== 'withdrawn') throw ServiceError.badRequest('status must be active or withdrawn');
    if (query.order !== undefined && query.order !== 'asc' && query.order !== 'desc') throw ServiceError.badRequest('order must be asc or desc');
    const rows = await this.repository.list({
      customerId,
      fwName: query.fw_name,
      hwName: query.hw_name,
      hwVersion: query.hw_version,
      fwType: query.fw_type,
      tag: query.tag,
      status: query.status,
      general: typeof query.general === 'boolean' ? query.general : undefined,
      order: query.order === 'asc' ? 'asc' : 'desc',
      limit: limit + 1,
      offset,
    });
    const items = rows.slice(0, limit).map(toFirmwareDto);
    return { items, next_offset: rows.length > limit ? offset + items.length : null };
  }

  async get(call: IdCall): Promise<FirmwareWithEtag> {
    const build = await this.find(call);
    return { build: toFirmwareDto(build), etag: etagOf(build) };
  }

  async update(call: EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, FirmwarePatch>): Promise<FirmwareWithEtag> {
    const ctx = requireTenant(call.ctx);
    const command = UpdateBuildCommand.create({ customer: ctx.customer, id: call.params?.id, body: call.body, ifMatch: call.headers?.['if-match'] });
    let expectedRevision: number | undefined;
    if (command.ifMatch !== null) {
      const current = await this.repository.findById({ customerId: command.customerId, id: command.id });
      if (!current) throw ServiceError.notFound('firmware build not found');
      const revision = revisionFromIfMatch(command.ifMatch, current);
      if (revision === null) throw new ServiceError(ErrorCode.PreconditionFailed, `If-Match does not match the current ETag ${etagOf(current)}: the build changed, read it again`);
      if (revision !== '*') expectedRevision = revision;
    }
    const result = await this.repository.update({ customerId: command.customerId, id: command.id, expectedRevision, changes: command.changes });
    return this.afterUpdate(ctx, result, 'firmware.update');
  }

  async binary(call: IdCall): Promise<FileRef> {
    return toFileRef(await this.find(call), 'binary');
  }

  async notes(call: IdCall): Promise<FileRef> {
    const build = await this.find(call);
    if (!build.notes) throw ServiceError.notFound('this build has no release notes');
    return toFileRef(build, 'notes');
  }

  async getTags(call: IdCall): Promise<TagSet> {
    return { tags: [...(await this.find(call)).tags] };
  }

  async replaceTags(call: EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, TagSet>): Promise<TagSet> {
    const ctx = requireTenant(call.ctx);
    const tags = checkTags(call.body?.tags);
    const result = await this.repository.update({ customerId: ctx.customer.id, id: String(call.params?.id ?? ''), changes: { tags } });
    const { build } = this.afterUpdate(ctx, result, 'firmware.tags.replace');
    return { tags: build.tags };
  }

  async addTag(call: EndpointCall<FirmwareTagParams, FirmwareCustomerQuery, undefined>): Promise<void> {
    const ctx = requireTenant(call.ctx);
    const tag = checkTags([call.params?.tag])[0]!;
    const changes = (current: BuildEntity): BuildChanges => {
      if (current.tags.includes(tag)) return {};
      if (current.tags.length >= MAX_TAGS_PER_BUILD) throw ServiceError.badRequest(`a build has at most ${MAX_TAGS_PER_BUILD} tags`);
      return { tags: [...current.tags, tag] };
    };
    const result = await this.repository.update({ customerId: ctx.customer.id, id: String(call.params?.id ?? ''), changes });
    this.afterUpdate(ctx, result, 'firmware.tags.add');
  }

  async removeTag(call: EndpointCall<FirmwareTagParams, FirmwareCustomerQuery, undefined>): Promise<void> {
    const ctx = requireTenant(call.ctx);
    const tag = String(call.params?.tag ?? '');
    const changes = (current: BuildEntity): BuildChanges => (current.tags.includes(tag) ? { tags: current.tags.filter((t) => t !== tag) } : {});
    const result = await this.repository.update({ customerId: ctx.customer.id, id: String(call.params?.id ?? ''), changes });
    this.afterUpdate(ctx, result, 'firmware.tags.remove');
  }

  async counts(request: { customerIds: readonly string[] }): Promise<Record<string, { firmware: number; tags: string[] }>> {
    const ids = request?.customerIds ?? [];
    const invalid = ids.find((id) => typeof id !== 'string' || !UUID.test(id));
    if (invalid !== undefined) throw ServiceError.badRequest(`customer id must be a UUID: ${String(invalid)}`);
    const customerIds = ids.map((id) => asCustomerId(id.toLowerCase()));
    const found = await this.repository.countsByCustomer(customerIds);
    const result: Record<string, { firmware: number; tags: string[] }> = {};
    ids.forEach((id, i) => {
      const entry = found.get(customerIds[i]!);
      result[id] = { firmware: entry?.builds ?? 0, tags: entry?.tags ?? [] };
    });
    return result;
  }

  /** The downloaded event: one served /dl link, one increment. Unknown builds are ignored. */
  async recordDownload(event: FirmwareDownloaded): Promise<void> {
    if (!event || typeof event.customerId !== 'string' || !UUID.test(event.customerId) || typeof event.buildId !== 'string' || !UUID.test(event.buildId)) {
      this.logger.write('warn', 'ignored malformed firmware.downloaded event', { event: event as unknown as Record<string, unknown> });
      return;
    }
    const customerId: CustomerId = asCustomerId(event.customerId.toLowerCase());
    const counted = await this.repository.recordDownload({ customerId, id: event.buildId, kind: event.kind === 'notes' ? 'notes' : 'binary' });
    if (!counted) this.logger.write('warn', 'download of an unknown build not counted', { customer_id: customerId, build_id: event.buildId });
  }

  private async find(call: IdCall): Promise<BuildEntity> {
    const customerId = requireTenant(call.ctx).customer.id;
    const build = await this.repository.findById({ customerId, id: String(call.params?.id ?? '') });
    if (!build) throw ServiceError.notFound('firmware build not found');
    return build;
  }

  private afterUpdate(ctx: TenantRequestContext, result: BuildUpdate, action: string): FirmwareWithEtag {
    switch (result.kind) {
      case 'not-found':
        throw ServiceError.notFound('firmware build not found');
      case 'stale':
        throw new ServiceError(ErrorCode.PreconditionFailed, `If-Match does not match the current ETag ${etagOf(result.current)}: the build changed, read it again`);
      case 'unchanged':
        return { build: toFirmwareDto(result.build), etag: etagOf(result.build) };
      case 'updated': {
        this.changes.changed(ctx.customer.id);
        this.changes.audit(ctx, action, { type: 'firmware', id: result.after.id }, settingsOf(result.before), settingsOf(result.after));
        return { build: toFirmwareDto(result.after), etag: etagOf(result.after) };
      }
    }
  }
}

function settingsOf(build: BuildEntity): Record<string, unknown> {
  return { status: build.status, tag_filter_disabled: build.tagFilterDisabled, tags: [...build.tags] };
}

function integerIn(value: unknown, fallback: number, min: number, max: number, message: string): number {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw ServiceError.badRequest(message);
  return n;
}
