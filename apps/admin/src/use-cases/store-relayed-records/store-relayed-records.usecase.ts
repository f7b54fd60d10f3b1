import { Inject, Injectable } from '@nestjs/common';
import { isDeliveryId, type RelayedRecord, type RelayedRecords } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { RecordAuditEntry } from '../record-audit-entry/record-audit-entry.usecase.js';
import { RecordSecurityEvent } from '../record-security-event/record-security-event.usecase.js';

/**
 * What the apps' outbox relays deliver (AdminMessages.storeRecords): audit entries and security
 * events, each stored once by its id whatever how often it arrives (the relays send at least
 * once). The reply is the acknowledgement: it is sent only when every record is stored (or
 * skipped: a duplicate, or unusable and logged), so an error here makes the relay send the
 * whole batch again.
 */
@Injectable()
export class StoreRelayedRecords {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(RecordAuditEntry) private readonly audit: RecordAuditEntry,
    @Inject(RecordSecurityEvent) private readonly securityEvents: RecordSecurityEvent,
  ) {}

  async execute(batch: RelayedRecords): Promise<{ stored: number }> {
    let stored = 0;
    const records: readonly RelayedRecord[] = Array.isArray(batch?.records) ? (batch.records as readonly RelayedRecord[]) : [];
    for (const record of records) {
      if (!record || !isDeliveryId(record.id)) {
        this.logger.write('warn', 'ignored relayed record without a valid id', { record: record as unknown as Record<string, unknown> });
        continue;
      }
      if (record.kind === 'audit') {
        if (await this.audit.execute(record.payload, record.id)) stored++;
      } else if (record.kind === 'security_event') {
        if (await this.securityEvents.execute(record.payload, record.id)) stored++;
      } else {
        this.logger.write('warn', 'ignored relayed record of unknown kind', { record: record as unknown as Record<string, unknown> });
      }
    }
    return { stored };
  }
}
