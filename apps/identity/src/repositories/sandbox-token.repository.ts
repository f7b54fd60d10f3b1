import { ApiTokenEntity } from '../entities/api-token.entity.js';
import { SandboxTokenEntity } from '../entities/sandbox-token.entity.js';
import { BaseRepository, toDate, toNullableDate } from '@app/infra';

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
    const rows = await this.manager
      .createQueryBuilder(SandboxTokenEntity, 's')
      .innerJoin(ApiTokenEntity, 't', 't.id = s.token_id')
      .select([
        's.bundle AS bundle',
        's.token_id AS token_id',
        's.token AS token',
        't.scopes AS scopes',
        't.expires_at AS expires_at',
        't.revoked_at AS revoked_at',
      ])
      .orderBy('s.bundle', 'ASC')
      .getRawMany<{ bundle: SandboxBundle; token_id: string; token: string; scopes: string[]; expires_at: unknown; revoked_at: unknown }>();
    return rows.map((r) => ({
      bundle: r.bundle,
      tokenId: r.token_id,
      token: r.token,
      scopes: r.scopes,
      expiresAt: toDate(r.expires_at),
      revokedAt: toNullableDate(r.revoked_at),
    }));
  }

  async put(input: { bundle: SandboxBundle; tokenId: string; token: string; at: Date }): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .insert()
      .into(SandboxTokenEntity)
      .values({ bundle: input.bundle, tokenId: input.tokenId, token: input.token, createdAt: input.at })
      .orUpdate(['token_id', 'token', 'created_at'], ['bundle'])
      .execute();
  }
}
