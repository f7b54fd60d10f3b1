import type { HealthPart, HealthSample, PartState } from '@app/contracts';
import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One gateway /status evaluation not rolled up yet, table admin.health_sample. */
@Entity({ schema: 'admin', name: 'health_sample' })
@Index('health_sample_ts_idx', ['ts'])
export class HealthSampleEntity {
  @PrimaryGeneratedColumn('identity', { name: 'id', type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column({ name: 'ts', type: 'timestamptz', precision: 3 })
  ts!: Date;

  @Column({ name: 'status', type: 'text' })
  status!: HealthSample['status'];

  @Column({ name: 'parts', type: 'jsonb' })
  parts!: Partial<Record<HealthPart, PartState>>;
}
