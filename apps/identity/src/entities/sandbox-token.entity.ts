import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A public sandbox token: its record in api_tokens plus, exceptionally, the token itself (shown on /docs). */
@Entity({ schema: 'identity', name: 'sandbox_tokens' })
export class SandboxTokenEntity {
  @PrimaryColumn({ type: 'text' })
  bundle!: 'read-only' | 'uploader' | 'full';

  @Column({ name: 'token_id', type: 'uuid' })
  tokenId!: string;

  @Column({ type: 'text' })
  token!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
