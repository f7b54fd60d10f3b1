import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { LoginChallenge } from '../domain/records.js';

/**
 * One POST /auth/login. Rows exist for uninvited addresses too (user_id null, never
 * verifiable) so that both cases do the same work and count against the same hourly limit.
 */
@Entity({ schema: 'identity', name: 'login_challenges' })
export class LoginChallengeEntity implements LoginChallenge {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  email!: string;

  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @Column({ name: 'code_salt', type: 'text' })
  codeSalt!: string;

  @Column({ name: 'code_hash', type: 'text' })
  codeHash!: string;

  /** SHA-256 of the magic-link token. */
  @Column({ name: 'link_hash', type: 'text' })
  linkHash!: string;

  /** Verification attempts reserved so far; the challenge dies at 5 wrong guesses. */
  @Column({ type: 'integer' })
  attempts!: number;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;
}
