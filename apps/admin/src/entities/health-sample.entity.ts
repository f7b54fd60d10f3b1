import type { HealthSample } from '@app/contracts';
import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One gateway /status evaluation, table admin.health_sample. */
@Entity({ schema: 'admin', name: 'health_sample' })
@Index('health_sample_ts_idx', ['ts'])
export class HealthSampleEntity {
  @PrimaryGeneratedColumn('identity', { name: 'id', type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column({ name: 'ts', type: 'timestamptz', precision: 3 })
  ts!: Date;

  @Column({ name: 'status', type: 'text' })
  status!: HealthSample['status'];
}
