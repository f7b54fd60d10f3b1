import type { CustomerId, Role } from '@app/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user's role in one customer. */
@Entity({ schema: 'identity', name: 'memberships' })
export class MembershipEntity {
  @PrimaryColumn({ name: 'customer_id', type: 'uuid' })
  customerId!: CustomerId;

  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  role!: Role;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
