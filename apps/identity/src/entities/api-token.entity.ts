import type { Bundle, CustomerId, Scope } from '@app/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ApiToken } from '../domain/records.js';

/** What the service keeps of an API token: its id (the JWT `jti`) and metadata, never the token. */
@Entity({ schema: 'identity', name: 'api_tokens' })
export class ApiTokenEntity implements ApiToken {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'customer_id', type: 'uuid' })
  customerId!: CustomerId;

  /** The user the token acts as. */
  @Column({ name: 'created_by', type: 'uuid' })
  createdBy!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  bundle!: Bundle;

  @Column({ type: 'text', array: true })
  scopes!: Scope[];

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
