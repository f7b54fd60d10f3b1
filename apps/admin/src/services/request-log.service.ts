import { Inject, Injectable } from '@nestjs/common';
import { type AcknowledgedRequestLogBatch, isDeliveryId, type RequestLogBatch } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { type RequestLogRow, toRequestLogRow } from '../dtos/request-log-entry.js';
import { RequestLogRepository } from '../repositories/request-log.repository.js';

@Injectable()
export class RequestLogService {
  private readonly logger = new JsonLogger('admin');

  constructor(@Inject(RequestLogRepository) private readonly repository: RequestLogRepository) {}

  /** Stores a gateway's batch with one COPY; unusable entries are dropped and counted in a log line. */
  async store(batch: RequestLogBatch): Promise<void> {
    await this.repository.insertBatch(this.rows(batch));
  }

  /**
   * An acknowledged batch: stored together with its `batch_id`, in one transaction, so a batch
   * sent again (its reply was lost) is skipped as a whole. Returns the rows stored now.
   */
  async storeOnce(batch: AcknowledgedRequestLogBatch): Promise<{ stored: number }> {
    const rows = this.rows(batch);
    if (!isDeliveryId(batch?.batch_id)) {
      await this.repository.insertBatch(rows); // no usable id: stored, without the guard
      return { stored: rows.length };
    }
    return { stored: (await this.repository.insertBatchOnce(batch.batch_id, rows)) ? rows.length : 0 };
  }

  private rows(batch: RequestLogBatch): RequestLogRow[] {
    const entries = Array.isArray(batch?.entries) ? batch.entries : [];
    const rows = entries.map(toRequestLogRow).filter((row): row is RequestLogRow => row !== null);
    if (rows.length < entries.length) {
      this.logger.write('warn', 'request-log entries without a valid timestamp dropped', { dropped: entries.length - rows.length });
    }
    return rows;
  }
}
