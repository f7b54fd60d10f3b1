import type { CustomerId } from '@app/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Customer, CustomerStatus } from '../domain/records.js';

/** A tenant, identified by its domain (stored lower-case). */
@Entity({ schema: 'identity', name: 'customers' })
export class CustomerEntity implements Customer {
  @PrimaryColumn({ type: 'uuid' })
  id!: CustomerId;

  @Column({ type: 'text' })
  domain!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  status!: CustomerStatus;

  @Column({ name: 'cors_origins', type: 'text', array: true })
  corsOrigins!: string[];

  @Column({ name: 'is_sandbox', type: 'boolean' })
  isSandbox!: boolean;

  @Column({ name: 'poll_interval_seconds', type: 'integer', nullable: true })
  pollIntervalSeconds!: number | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
