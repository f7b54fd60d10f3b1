import { Inject, Injectable } from '@nestjs/common';
import { type FirmwareDownloaded, isUuid } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { customerIdOf } from '@app/platform';
import { FirmwareStore } from '../../repositories/firmware.store.js';

/** The downloaded event: one served /dl link, one increment. Malformed events and unknown builds are logged and ignored. */
@Injectable()
export class RecordBuildDownloadUseCase {
  private readonly logger = new JsonLogger('firmware');

  constructor(@Inject(FirmwareStore) private readonly store: FirmwareStore) {}

  async execute(event: FirmwareDownloaded): Promise<void> {
    const customerId = customerIdOf(event?.customerId);
    if (!customerId || !isUuid(event.buildId)) {
      this.logger.write('warn', 'ignored malformed firmware.downloaded event', { event: event as unknown as Record<string, unknown> });
      return;
    }
    const counted = await this.store.repos.builds.recordDownload({ customerId, id: event.buildId, kind: event.kind === 'notes' ? 'notes' : 'binary' });
    if (!counted) this.logger.write('warn', 'download of an unknown build not counted', { customer_id: customerId, build_id: event.buildId });
  }
}
