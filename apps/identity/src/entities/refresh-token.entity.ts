import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One refresh token of a session, stored as its SHA-256. Rotation marks the presented token
 * `rotated_at` and inserts the next one, so a token presented again after rotation is
 * recognised as reuse (which revokes the session).
 */
@Entity({ schema: 'identity', name: 'refresh_tokens' })
export class RefreshTokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ name: 'session_id', type: 'uuid' })
  sessionId!: string;

  @Column({ name: 'issued_at', type: 'timestamptz' })
  issuedAt!: Date;

  @Column({ name: 'rotated_at', type: 'timestamptz', nullable: true })
  rotatedAt!: Date | null;
}
