import type { CustomerId } from '@app/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A console session: started by email proof, kept alive by refresh, bounded by idle and total limits. */
@Entity({ schema: 'identity', name: 'sessions' })
export class SessionEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  /** The customer the session acts on (changed by /auth/switch). */
  @Column({ name: 'customer_id', type: 'uuid' })
  customerId!: CustomerId;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz' })
  lastUsedAt!: Date;

  /** created_at + 7 days: the total limit. */
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'revoked_reason', type: 'text', nullable: true })
  revokedReason!: string | null;
}
