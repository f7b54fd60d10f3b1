import { Inject, Injectable } from '@nestjs/common';
import type { RequestLogBatch } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { type RequestLogRow, toRequestLogRow } from '../dtos/request-log-entry.js';
import { RequestLogRepository } from '../repositories/request-log.repository.js';

@Injectable()
export class RequestLogService {
  private readonly logger = new JsonLogger('admin');

  constructor(@Inject(RequestLogRepository) private readonly repository: RequestLogRepository) {}

  /** Stores a gateway's batch with one INSERT; unusable entries are dropped and counted in a log line. */
  async store(batch: RequestLogBatch): Promise<void> {
    const entries = Array.isArray(batch?.entries) ? batch.entries : [];
    const rows = entries.map(toRequestLogRow).filter((row): row is RequestLogRow => row !== null);
    if (rows.length < entries.length) {
      this.logger.write('warn', 'request-log entries without a valid timestamp dropped', { dropped: entries.length - rows.length });
    }
    await this.repository.insertBatch(rows);
  }
}
