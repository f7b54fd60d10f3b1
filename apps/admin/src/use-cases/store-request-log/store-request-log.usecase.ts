import { Inject, Injectable } from '@nestjs/common';
import { JsonLogger } from '@app/infra';
import { AdminStore } from '../../repositories/admin.store.js';
import { UsageRollup } from '../../stats/usage-rollup.service.js';
import type { StoreRequestLogCommand } from './store-request-log.command.js';

/**
 * Stores a gateway's request-log batch in bulk. A batch with its `batch_id` is stored together
 * with the id, in one transaction, so a batch sent again (its reply was lost) is skipped as a
 * whole; the counters are summed afterwards (UsageRollup). Returns the rows stored now.
 */
@Injectable()
export class StoreRequestLog {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(UsageRollup) private readonly rollup: UsageRollup,
  ) {}

  async execute(command: StoreRequestLogCommand): Promise<{ stored: number }> {
    const { rows, batchId } = command;
    if (command.dropped > 0) this.logger.write('warn', 'request-log entries without a valid timestamp dropped', { dropped: command.dropped });
    let stored = rows.length;
    if (batchId === null) await this.adminStore.repos.requestLog.insertBatch(rows);
    else if (!(await this.adminStore.repos.requestLog.insertBatchOnce(batchId, rows))) stored = 0;
    this.rollup.afterBatch();
    return { stored };
  }
}
