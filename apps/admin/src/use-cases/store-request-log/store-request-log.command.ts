import { isDeliveryId, type RequestLogBatch } from '@app/contracts';
import { type RequestLogRow, toRequestLogRow } from '../../dtos/request-log-entry.js';

/**
 * A gateway's request-log batch: the usable entries as rows (an entry without a valid timestamp
 * is dropped and counted, never refused: the rest of the batch is stored) and the batch id that
 * stores it once (null: no usable id, or a batch of an earlier gateway that sends none).
 */
export class StoreRequestLogCommand {
  private constructor(
    readonly rows: readonly RequestLogRow[],
    readonly batchId: string | null,
    readonly dropped: number,
  ) {}

  static create(batch: RequestLogBatch & { batch_id?: unknown }): StoreRequestLogCommand {
    const entries = Array.isArray(batch?.entries) ? batch.entries : [];
    const rows = entries.map(toRequestLogRow).filter((row): row is RequestLogRow => row !== null);
    return new StoreRequestLogCommand(rows, isDeliveryId(batch?.batch_id) ? batch.batch_id : null, entries.length - rows.length);
  }
}
