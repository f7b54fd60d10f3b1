import { Inject, Injectable } from '@nestjs/common';
import type { LogFileDownloaded } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { customerIdOf } from '@app/platform';
import { LogdataStore } from '../../repositories/logdata.store.js';
import { normalizeLogFileName } from '../shared/log-file-name.js';

/** The downloaded event: one served /dl link, one increment. Malformed events and unknown files are logged and ignored. */
@Injectable()
export class RecordLogFileDownloadUseCase {
  private readonly logger = new JsonLogger('logdata');

  constructor(@Inject(LogdataStore) private readonly store: LogdataStore) {}

  async execute(event: LogFileDownloaded): Promise<void> {
    const customerId = customerIdOf(event?.customerId);
    if (!customerId || typeof event.name !== 'string') {
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
    const counted = await this.store.repos.files.recordDownload({ customerId, name, at });
    if (!counted) this.logger.write('warn', 'download of an unknown log file not counted', { customer_id: customerId, name });
  }
}
