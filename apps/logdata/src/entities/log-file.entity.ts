import type { CustomerId } from '@app/contracts';
import { Column, Entity, Index, PrimaryColumn, type ValueTransformer } from 'typeorm';
import type { StoredLogFile } from '../domain/log-file.js';

/** bigint arrives as a string from pg and as number or BigInt from PGlite (the embedded database): always a number here. */
export const bigintToNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : Number(value)),
};

/** A stored log file (table logdata.log_file, see the migration). Mapping only: the schema comes from migrations. */
@Entity({ schema: 'logdata', name: 'log_file' })
@Index('log_file_customer_uploaded_at_idx', ['customerId', 'uploadedAt'])
export class LogFileEntity implements StoredLogFile {
  @PrimaryColumn({ name: 'customer_id', type: 'uuid' })
  customerId!: CustomerId;

  /** 128 lower-case hex characters. */
  @PrimaryColumn({ name: 'name', type: 'character', length: 128, collation: 'C' })
  name!: string;

  @Column({ name: 'object_key', type: 'text' })
  objectKey!: string;

  @Column({ name: 'size_bytes', type: 'bigint', transformer: bigintToNumber })
  sizeBytes!: number;

  /** Lower-case hex SHA-256 of the content. */
  @Column({ name: 'sha256', type: 'character', length: 64 })
  sha256!: string;

  @Column({ name: 'content_type', type: 'text' })
  contentType!: string;

  @Column({ name: 'uploaded_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  uploadedAt!: Date;

  /** `token:<id>` or `user:<id>`. */
  @Column({ name: 'uploaded_by', type: 'text' })
  uploadedBy!: string;

  @Column({ name: 'download_count', type: 'bigint', default: 0, transformer: bigintToNumber })
  downloadCount!: number;

  @Column({ name: 'last_accessed_at', type: 'timestamptz', precision: 3, nullable: true })
  lastAccessedAt!: Date | null;
}
