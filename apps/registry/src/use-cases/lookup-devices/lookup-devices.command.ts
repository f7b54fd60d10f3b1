import { CommonErrors, type CustomerId, type DeviceLookupBatchRequest, type DeviceLookupRequest, MAX_DEVICE_LOOKUP_BATCH } from '@app/contracts';
import { requireCustomerId } from '@app/platform';

/**
 * RegistryMessages.lookupDevice / lookupDevices (the update check's questions). The HW ids are
 * kept as asked: one that no device can have is answered null, not refused.
 */
export class LookupDevicesCommand {
  private constructor(
    readonly customerId: CustomerId,
    readonly hwids: readonly unknown[],
  ) {}

  static one(request: DeviceLookupRequest | undefined): LookupDevicesCommand {
    return new LookupDevicesCommand(requireCustomerId(request?.customerId), [request?.hwid]);
  }

  static many(request: DeviceLookupBatchRequest | undefined): LookupDevicesCommand {
    const customerId = requireCustomerId(request?.customerId);
    const hwids: unknown = request?.hwids;
    if (!Array.isArray(hwids) || hwids.length > MAX_DEVICE_LOOKUP_BATCH) {
      throw CommonErrors.invalid_request({ detail: `hwids must be an array of at most ${MAX_DEVICE_LOOKUP_BATCH} HW ids` });
    }
    return new LookupDevicesCommand(customerId, hwids as unknown[]);
  }
}
