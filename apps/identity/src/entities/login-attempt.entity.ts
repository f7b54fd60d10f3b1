import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { LoginAttemptKind } from '../domain/records.js';

/** One login request or verification attempt, counted by the per-IP and per-address limits. */
@Entity({ schema: 'identity', name: 'login_attempts' })
export class LoginAttemptEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column({ type: 'text' })
  kind!: LoginAttemptKind;

  @Column({ type: 'text' })
  ip!: string;

  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'timestamptz' })
  at!: Date;
}
