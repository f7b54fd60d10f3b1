import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A person, identified by email (stored lower-case). Belongs to customers through memberships. */
@Entity({ schema: 'identity', name: 'users' })
export class UserEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'boolean' })
  disabled!: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_login_at', type: 'timestamptz', nullable: true })
  lastLoginAt!: Date | null;
}
