import { SandboxTokenEntity } from '../entities/sandbox-token.entity.js';
import { BaseRepository, sql, toDate, toNullableDate } from '@app/infra';

export type SandboxBundle = SandboxTokenEntity['bundle'];

export interface StoredSandboxToken {
  readonly bundle: SandboxBundle;
  readonly tokenId: string;
  readonly token: string;
  readonly scopes: string[];
  readonly expiresAt: Date;
  readonly revokedAt: Date | null;
}

export class SandboxTokenRepository extends BaseRepository {
  async list(): Promise<StoredSandboxToken[]> {
    const { rows } = await sql(
      this.manager,
      `SELECT s.bundle, s.token_id, s.token, t.scopes, t.expires_at, t.revoked_at
         FROM identity.sandbox_tokens s
         JOIN identity.api_tokens t ON t.id = s.token_id
        ORDER BY s.bundle ASC`,
    );
    return rows.map((r) => ({
      bundle: r.bundle as SandboxBundle,
      tokenId: String(r.token_id),
      token: String(r.token),
      scopes: r.scopes as string[],
      expiresAt: toDate(r.expires_at),
      revokedAt: toNullableDate(r.revoked_at),
    }));
  }

  async put(input: { bundle: SandboxBundle; tokenId: string; token: string; at: Date }): Promise<void> {
    await sql(
      this.manager,
      `INSERT INTO identity.sandbox_tokens (bundle, token_id, token, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (bundle) DO UPDATE SET token_id = EXCLUDED.token_id, token = EXCLUDED.token, created_at = EXCLUDED.created_at`,
      [input.bundle, input.tokenId, input.token, input.at],
    );
  }
}
