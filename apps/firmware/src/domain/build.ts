import type { CustomerId, FwType } from '@app/contracts';

export type BuildStatus = 'active' | 'withdrawn';

export interface BuildNotes {
  readonly objectKey: string;
  readonly sizeBytes: number;
  readonly sha256: string;
}

/**
 * A stored firmware build as the use cases see it; the repository returns it and the ORM
 * entity implements it (so the two stay in step), but nothing outside the repository sees the ORM.
 */
export interface Build {
  readonly id: string;
  readonly customerId: CustomerId;
  readonly hwName: string;
  readonly hwVersion: string;
  readonly fwName: string;
  readonly fwVersion: string;
  readonly fwType: FwType;
  /** domain/version-order.ts versionKey(fwVersion). */
  readonly versionKey: Buffer;
  readonly buildDate: Date;
  readonly generalRelease: boolean;
  readonly tagFilterDisabled: boolean;
  readonly status: BuildStatus;
  readonly objectKey: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  /** The text after @(#) the values came from, or null. */
  readonly whatString: string | null;
  readonly notes: BuildNotes | null;
  readonly uploadedAt: Date;
  readonly uploadedBy: string;
  readonly updatedAt: Date;
  /** Counts changes of settings and tags; the ETag. */
  readonly revision: number;
  readonly downloadCount: number;
  readonly notesDownloadCount: number;
  /** Sorted. */
  readonly tags: readonly string[];
}
