import { Inject, Injectable } from '@nestjs/common';
import { type EndpointCall, type LogFileListQuery, type LogFilePage, requireTenant } from '@app/contracts';
import { toLogFileDto } from '../../domain/log-file-view.js';
import { LogdataStore } from '../../repositories/logdata.store.js';
import { ListLogFilesCommand } from './list-log-files.command.js';

/** GET /logdata: one page of the customer's files, sorted by name. */
@Injectable()
export class ListLogFilesUseCase {
  constructor(@Inject(LogdataStore) private readonly store: LogdataStore) {}

  async executeForRequest(call: EndpointCall<Record<string, never>, LogFileListQuery, undefined>): Promise<LogFilePage> {
    return this.execute(ListLogFilesCommand.create({ customer: requireTenant(call.ctx).customer, query: call.query }));
  }

  async execute(command: ListLogFilesCommand): Promise<LogFilePage> {
    const rows = await this.store.repos.files.list({
      customerId: command.customerId,
      prefix: command.prefix,
      uploadedAfter: command.uploadedAfter,
      uploadedBefore: command.uploadedBefore,
      limit: command.limit + 1,
      offset: command.offset,
    });
    return toPage(rows.map(toLogFileDto), command.limit, command.offset);
  }
}

/** `rows` holds up to limit+1 items: the extra one only says that another page exists. */
export function toPage<T>(rows: readonly T[], limit: number, offset: number): { items: T[]; next_offset: number | null } {
  const items = rows.slice(0, limit);
  return { items, next_offset: rows.length > limit ? offset + items.length : null };
}
