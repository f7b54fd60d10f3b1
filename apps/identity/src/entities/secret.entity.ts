import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Named server-side secrets (e.g. the CSRF derivation key), generated once. */
@Entity({ schema: 'identity', name: 'secrets' })
export class SecretEntity {
  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'bytea' })
  value!: Buffer;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
