import { Inject, Injectable } from '@nestjs/common';
import {
  asCustomerId,
  type CountsByCustomer,
  type CustomerCounts,
  type CustomerId,
  type EndpointCall,
  type FileRef,
  type LogFile,
  type LogFileCustomerQuery,
  type LogFileDownloaded,
  type LogFileListQuery,
  type LogFilePage,
  type LogFileParams,
  type LogFileUploadResult,
  requireTenant,
  ServiceError,
} from '@app/contracts';
import { JsonLogger, ObjectStore } from '@app/infra';
import { normalizeLogFileName, normalizeLogFilePrefix } from '../dtos/log-file-name.js';
import { toFileRef, toLogFileDto } from '../dtos/log-file.dto.js';
import { LogFileRepository } from '../repositories/log-file.repository.js';
import { UploadLogFileCommand } from '../use-cases/upload-log-file/upload-log-file.command.js';
import { UploadLogFile } from '../use-cases/upload-log-file/upload-log-file.usecase.js';

export const LIST_DEFAULT_LIMIT = 50;
export const LIST_MAX_LIMIT = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type FileCall = EndpointCall<LogFileParams, LogFileCustomerQuery, undefined>;
type ListCall = EndpointCall<Record<string, never>, LogFileListQuery, undefined>;

/** The logdata app's operations; the tenant always comes from the request context. */
@Injectable()
export class LogdataService {
  private readonly logger = new JsonLogger('logdata');

  constructor(
    @Inject(LogFileRepository) private readonly repository: LogFileRepository,
    @Inject(UploadLogFile) private readonly uploadLogFile: UploadLogFile,
    @Inject(ObjectStore) private readonly store: ObjectStore,
  ) {}

  async upload(call: FileCall): Promise<LogFileUploadResult> {
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
      if (call.file?.key) await this.store.delete(call.file.key).catch(() => undefined);
      throw err;
    }
    return this.uploadLogFile.execute(command, call.ctx);
  }

  /** GET and HEAD /logdata/{name}: where the bytes are. Not counted here (see toFileRef). */
  async download(call: FileCall): Promise<FileRef> {
    return toFileRef(await this.get(call));
  }

  async meta(call: FileCall): Promise<LogFile> {
    return toLogFileDto(await this.get(call));
  }

  async list(call: ListCall): Promise<LogFilePage> {
    const customerId = requireTenant(call.ctx).customer.id;
    const query = call.query ?? ({} as LogFileListQuery);
    const limit = integerIn(query.limit, LIST_DEFAULT_LIMIT, 1, LIST_MAX_LIMIT, 'limit must be an integer from 1 to 500');
    const offset = integerIn(query.offset, 0, 0, Number.MAX_SAFE_INTEGER, 'offset must be a non-negative integer');
    const rows = await this.repository.list({
      customerId,
      prefix: normalizeLogFilePrefix(query.prefix),
      uploadedAfter: timestamp(query.uploaded_after, 'uploaded_after'),
      uploadedBefore: timestamp(query.uploaded_before, 'uploaded_before'),
      limit: limit + 1,
      offset,
    });
    return toPage(rows.map(toLogFileDto), limit, offset);
  }

  async counts(request: CustomerCounts): Promise<CountsByCustomer> {
    const ids = request?.customerIds ?? [];
    const invalid = ids.find((id) => typeof id !== 'string' || !UUID.test(id));
    if (invalid !== undefined) throw ServiceError.badRequest(`customer id must be a UUID: ${String(invalid)}`);
    const customerIds = ids.map((id) => asCustomerId(id.toLowerCase()));
    const found = await this.repository.countsByCustomer(customerIds);
    const result: Record<string, { count: number; storedBytes: number }> = {};
    ids.forEach((id, i) => {
      result[id] = found.get(customerIds[i]!) ?? { count: 0, storedBytes: 0 };
    });
    return result;
  }

  /** The downloaded event: one served /dl link, one increment. Unknown files are ignored. */
  async recordDownload(event: LogFileDownloaded): Promise<void> {
    if (!event || typeof event.customerId !== 'string' || !UUID.test(event.customerId) || typeof event.name !== 'string') {
      this.logger.write('warn', 'ignored malformed logdata.downloaded event', { event: event as unknown as Record<string, unknown> });
      return;
    }
    let name: string;
    try {
      name = normalizeLogFileName(event.name);
    } catch {
      this.logger.write('warn', 'ignored logdata.downloaded event with an invalid name', { name: event.name });
      return;
    }
    const parsed = event.at ? new Date(event.at) : new Date();
    const at = Number.isNaN(parsed.getTime()) ? new Date() : parsed;
    const customerId: CustomerId = asCustomerId(event.customerId.toLowerCase());
    const counted = await this.repository.recordDownload({ customerId, name, at });
    if (!counted) this.logger.write('warn', 'download of an unknown log file not counted', { customer_id: customerId, name });
  }

  private async get(call: FileCall) {
    const customerId = requireTenant(call.ctx).customer.id;
    const file = await this.repository.findByName({ customerId, name: normalizeLogFileName(call.params?.name) });
    if (!file) throw ServiceError.notFound('log file not found');
    return file;
  }
}

/** `rows` holds up to limit+1 items: the extra one only says that another page exists. */
export function toPage<T>(rows: readonly T[], limit: number, offset: number): { items: T[]; next_offset: number | null } {
  const items = rows.slice(0, limit);
  return { items, next_offset: rows.length > limit ? offset + items.length : null };
}

function integerIn(value: unknown, fallback: number, min: number, max: number, message: string): number {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw ServiceError.badRequest(message);
  return n;
}

function timestamp(value: unknown, field: string): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const date = typeof value === 'string' ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw ServiceError.badRequest(`${field} must be an RFC 3339 timestamp`);
  return date;
}
