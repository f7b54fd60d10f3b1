import {
  type CustomerId,
  DEVICE_IMPORT_CONTENT_TYPES,
  type RequestContext,
  RegistryErrors,
  requireTenant,
  type StagedFile,
  type TenantRequestContext,
} from '@app/contracts';
import { canWriteTags } from '../../domain/access.js';

export type ImportFormat = 'csv' | 'json';

/** How each media type the contract accepts is read. */
const FORMATS: Record<(typeof DEVICE_IMPORT_CONTENT_TYPES)[number], ImportFormat> = { 'text/csv': 'csv', 'application/json': 'json' };

/** POST /devices/import: the staged body and how to read it. */
export class ImportDevicesCommand {
  private constructor(
    readonly ctx: TenantRequestContext,
    readonly customerId: CustomerId,
    readonly file: StagedFile,
    readonly format: ImportFormat,
    /** Rows that set tags need tags:write (the endpoint's own scope is devices:write). */
    readonly canWriteTags: boolean,
    /** dry_run=true: count and list what would change, store nothing. */
    readonly dryRun: boolean,
  ) {}

  /** Throws 400 without a staged body, 415 for a media type other than text/csv or application/json. */
  static create(input: { ctx: RequestContext; file: StagedFile | undefined; contentType?: string; dryRun?: boolean }): ImportDevicesCommand {
    const ctx = requireTenant(input.ctx);
    const file = input.file;
    if (!file || typeof file.key !== 'string' || file.key === '') throw RegistryErrors.device_import_body_required();
    const media = (input.contentType ?? file.contentType ?? '').split(';')[0].trim().toLowerCase();
    const format: ImportFormat | undefined = Object.hasOwn(FORMATS, media) ? FORMATS[media as keyof typeof FORMATS] : undefined;
    if (!format) throw RegistryErrors.device_import_media_type();
    return new ImportDevicesCommand(ctx, ctx.customer.id, file, format, canWriteTags(ctx), input.dryRun === true);
  }
}
