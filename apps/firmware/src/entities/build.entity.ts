import type { CustomerId, FwType } from '@app/contracts';
import { Column, Entity, PrimaryColumn, type ValueTransformer } from 'typeorm';
import type { Build, BuildNotes, BuildStatus } from '../domain/build.js';

/** bigint arrives as a decimal string from the driver: always a number here. */
export const bigintToNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : Number(value)),
};

/**
 * A firmware build (table firmware.build, see the migrations). Mapping only: the schema comes
 * from migrations, and the repository reads rows with their tags (`tags`, from build_tag).
 */
@Entity({ schema: 'firmware', name: 'build' })
export class BuildEntity implements Build {
  @PrimaryColumn({ name: 'id', type: 'uuid' })
  id!: string;

  @Column({ name: 'customer_id', type: 'uuid' })
  customerId!: CustomerId;

  @Column({ name: 'hw_name', type: 'text', collation: 'C' })
  hwName!: string;

  @Column({ name: 'hw_version', type: 'text', collation: 'C' })
  hwVersion!: string;

  @Column({ name: 'fw_name', type: 'text', collation: 'C' })
  fwName!: string;

  @Column({ name: 'fw_version', type: 'text', collation: 'C' })
  fwVersion!: string;

  @Column({ name: 'fw_type', type: 'text' })
  fwType!: FwType;

  /** domain/version-order.ts versionKey(fwVersion). */
  @Column({ name: 'version_key', type: 'bytea' })
  versionKey!: Buffer;

  @Column({ name: 'build_date', type: 'timestamptz', precision: 3 })
  buildDate!: Date;

  @Column({ name: 'general_release', type: 'boolean' })
  generalRelease!: boolean;

  @Column({ name: 'tag_filter_disabled', type: 'boolean' })
  tagFilterDisabled!: boolean;

  @Column({ name: 'status', type: 'text' })
  status!: BuildStatus;

  @Column({ name: 'object_key', type: 'text' })
  objectKey!: string;

  @Column({ name: 'size_bytes', type: 'bigint', transformer: bigintToNumber })
  sizeBytes!: number;

  @Column({ name: 'sha256', type: 'character', length: 64 })
  sha256!: string;

  /** The text after @(#) the values came from, or null. */
  @Column({ name: 'what_string', type: 'text', nullable: true })
  whatString!: string | null;

  /** notes_object_key, notes_size_bytes, notes_sha256 (all set or all null). */
  notes!: BuildNotes | null;

  @Column({ name: 'uploaded_at', type: 'timestamptz', precision: 3 })
  uploadedAt!: Date;

  @Column({ name: 'uploaded_by', type: 'text' })
  uploadedBy!: string;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt!: Date;

  /** Counts changes of settings and tags; the ETag. */
  @Column({ name: 'revision', type: 'integer' })
  revision!: number;

  @Column({ name: 'download_count', type: 'bigint', transformer: bigintToNumber })
  downloadCount!: number;

  @Column({ name: 'notes_download_count', type: 'bigint', transformer: bigintToNumber })
  notesDownloadCount!: number;

  /** Sorted (table firmware.build_tag). */
  tags!: string[];
}
