import { Inject, Injectable } from '@nestjs/common';
import { type AcknowledgedRequestLogBatch, isDeliveryId, type RequestLogBatch } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { type RequestLogRow, toRequestLogRow } from '../dtos/request-log-entry.js';
import { UsageRollup } from '../stats/usage-rollup.service.js';
import { AdminStore } from '../repositories/admin.store.js';

@Injectable()
export class RequestLogService {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(UsageRollup) private readonly rollup: UsageRollup,
  ) {}

  /** Stores a gateway's batch with one COPY; unusable entries are dropped and counted in a log line. */
  async store(batch: RequestLogBatch): Promise<void> {
    await this.adminStore.repos.requestLog.insertBatch(this.rows(batch));
    this.rollup.afterBatch();
  }

  /**
   * An acknowledged batch: stored together with its `batch_id`, in one transaction, so a batch
   * sent again (its reply was lost) is skipped as a whole. Returns the rows stored now.
   */
  async storeOnce(batch: AcknowledgedRequestLogBatch): Promise<{ stored: number }> {
    const rows = this.rows(batch);
    let stored = rows.length;
    if (!isDeliveryId(batch?.batch_id))
      await this.adminStore.repos.requestLog.insertBatch(rows); // no usable id: stored, without the guard
    else if (!(await this.adminStore.repos.requestLog.insertBatchOnce(batch.batch_id, rows))) stored = 0;
    this.rollup.afterBatch();
    return { stored };
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
