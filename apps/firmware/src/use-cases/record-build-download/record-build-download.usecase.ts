import { Inject, Injectable } from '@nestjs/common';
import { BUILD_ID_PATTERN, type FirmwareDownloaded } from '@app/contracts';
import { JsonLogger } from '@app/infra';
import { customerIdOf } from '@app/platform';
import { FirmwareStore } from '../../repositories/firmware.store.js';

/** The contract's build id rule. */
const BUILD_ID = new RegExp(BUILD_ID_PATTERN);

/** The downloaded event: one served /dl link, one increment. Malformed events and unknown builds are logged and ignored. */
@Injectable()
export class RecordBuildDownloadUseCase {
  private readonly logger = new JsonLogger('firmware');

  constructor(@Inject(FirmwareStore) private readonly store: FirmwareStore) {}

  async execute(event: FirmwareDownloaded): Promise<void> {
    const customerId = customerIdOf(event?.customerId);
    if (!customerId || typeof event.buildId !== 'string' || !BUILD_ID.test(event.buildId)) {
      this.logger.write('warn', 'ignored malformed firmware.downloaded event', { event: event as unknown as Record<string, unknown> });
      return;
    }
    const counted = await this.store.repos.builds.recordDownload({ customerId, id: event.buildId, kind: event.kind === 'notes' ? 'notes' : 'binary' });
    if (!counted) this.logger.write('warn', 'download of an unknown build not counted', { customer_id: customerId, build_id: event.buildId });
  }
}
