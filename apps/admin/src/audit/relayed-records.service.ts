import { Inject, Injectable } from '@nestjs/common';
import { isDeliveryId, type RelayedRecord, type RelayedRecords } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { SecurityEventsService } from '../security/security-events.service.js';
import { AuditService } from './audit.service.js';

/**
 * What the apps' outbox relays deliver (AdminMessages.storeRecords): audit entries and security
 * events, each stored once by its id whatever how often it arrives (the relays send at least
 * once). The reply is the acknowledgement: it is sent only when every record is stored (or
 * skipped: a duplicate, or unusable and logged), so an error here makes the relay send the
 * whole batch again.
 */
@Injectable()
export class RelayedRecordsService {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AuditService) private readonly audit: AuditService,
    @Inject(SecurityEventsService) private readonly securityEvents: SecurityEventsService,
  ) {}

  async store(batch: RelayedRecords): Promise<{ stored: number }> {
    let stored = 0;
    const records: readonly RelayedRecord[] = Array.isArray(batch?.records) ? (batch.records as readonly RelayedRecord[]) : [];
    for (const record of records) {
      if (!record || !isDeliveryId(record.id)) {
        this.logger.write('warn', 'ignored relayed record without a valid id', { record: record as unknown as Record<string, unknown> });
        continue;
      }
      if (record.kind === 'audit') {
        if (await this.audit.store(record.payload, record.id)) stored++;
      } else if (record.kind === 'security_event') {
        if (await this.securityEvents.record(record.payload, record.id)) stored++;
      } else {
        this.logger.write('warn', 'ignored relayed record of unknown kind', { record: record as unknown as Record<string, unknown> });
      }
    }
    return { stored };
  }
}
