import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One part's samples of one UTC day, rolled up (table admin.health_daily). */
@Entity({ schema: 'admin', name: 'health_daily' })
export class HealthDailyEntity {
  @PrimaryColumn({ name: 'day', type: 'date' })
  day!: string;

  /** A HEALTH_PARTS name, or `service` for the whole service. */
  @PrimaryColumn({ name: 'part', type: 'text' })
  part!: string;

  @Column({ name: 'samples', type: 'integer' })
  samples!: number;

  @Column({ name: 'up', type: 'integer' })
  up!: number;

  @Column({ name: 'degraded', type: 'integer' })
  degraded!: number;

  @Column({ name: 'down', type: 'integer' })
  down!: number;
}
