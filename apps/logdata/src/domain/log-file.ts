import type { CustomerId } from '@app/contracts';

/**
 * A stored log file as the use cases see it; the repository returns it and the ORM entity
 * implements it (so the two stay in step), but nothing outside the repository sees the ORM.
 */
export interface StoredLogFile {
  readonly customerId: CustomerId;
  /** 128 lower-case hex characters. */
  readonly name: string;
  readonly objectKey: string;
  readonly sizeBytes: number;
  /** Lower-case hex SHA-256 of the content. */
  readonly sha256: string;
  readonly contentType: string;
  readonly uploadedAt: Date;
  /** `token:<id>` or `user:<id>`. */
  readonly uploadedBy: string;
  readonly downloadCount: number;
  readonly lastAccessedAt: Date | null;
}
