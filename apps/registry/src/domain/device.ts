import type { CustomerId, DeviceStatus } from '@app/contracts';

/** A stored device as the use cases see it (never the ORM entity). Tags sorted in byte order, distinct. */
export interface DeviceRecord {
  readonly customerId: CustomerId;
  readonly hwid: string;
  readonly status: DeviceStatus;
  readonly tags: readonly string[];
  readonly attributes: Record<string, unknown>;
  readonly keys: readonly string[];
  readonly hasKeys: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly lastSeenAt: Date | null;
  readonly lastFwVersion: string | null;
}
