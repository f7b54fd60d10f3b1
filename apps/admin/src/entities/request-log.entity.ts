import { Column, Entity, PrimaryGeneratedColumn, type ValueTransformer } from 'typeorm';

const bigintToNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : Number(value)),
};

/** One request's request-log entry, table admin.request_log. Mapping only: the schema, partitions and indexes come from migrations (see RequestLogLeanIngest1764850000000 and UsageFromStoredEntries1764900000000). */
@Entity({ schema: 'admin', name: 'request_log' })
export class RequestLogEntity {
  @PrimaryGeneratedColumn('identity', { name: 'id', type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column({ name: 'ts', type: 'timestamptz', precision: 3 })
  ts!: Date;

  @Column({ name: 'domain', type: 'text', nullable: true })
  domain!: string | null;

  @Column({ name: 'actor', type: 'text', nullable: true })
  actor!: string | null;

  @Column({ name: 'method', type: 'text' })
  method!: string;

  @Column({ name: 'route', type: 'text' })
  route!: string;

  @Column({ name: 'path', type: 'text' })
  path!: string;

  @Column({ name: 'status', type: 'integer' })
  status!: number;

  @Column({ name: 'ip', type: 'text' })
  ip!: string;

  @Column({ name: 'user_agent', type: 'text' })
  userAgent!: string;

  @Column({ name: 'bytes_in', type: 'bigint', transformer: bigintToNumber })
  bytesIn!: number;

  @Column({ name: 'bytes_out', type: 'bigint', transformer: bigintToNumber })
  bytesOut!: number;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ name: 'request_id', type: 'text' })
  requestId!: string;

  @Column({ name: 'refusal', type: 'text', nullable: true })
  refusal!: string | null;

  /** The number of the stored batch the entry came in (the usage counters are summed per batch). */
  @Column({ name: 'batch', type: 'bigint', nullable: true })
  batch!: string | null;
}
