import type { LoginAttemptKind } from '../domain/records.js';
import { LoginAttemptEntity } from '../entities/login-attempt.entity.js';
import { BaseRepository, toIntOrZero, toNullableDate } from '@app/infra';

export class LoginAttemptRepository extends BaseRepository {
  async record(input: { kind: LoginAttemptKind; ip: string; email: string; at: Date }): Promise<void> {
    await this.manager.createQueryBuilder().insert().into(LoginAttemptEntity).values(input).execute();
  }

  /** Attempts of `kind` by one client address or one email since `since`, and the oldest of them. */
  async countSince(input: { kind: LoginAttemptKind; by: 'ip' | 'email'; value: string; since: Date }): Promise<{ count: number; oldest: Date | null }> {
    const column = input.by === 'ip' ? 'a.ip' : 'a.email';
    const row = await this.manager
      .createQueryBuilder(LoginAttemptEntity, 'a')
      .select('COUNT(*)', 'n')
      .addSelect('MIN(a.at)', 'oldest')
      .where(`a.kind = :kind AND ${column} = :value AND a.at > :since`, { kind: input.kind, value: input.value, since: input.since })
      .getRawOne<{ n: unknown; oldest: unknown }>();
    return { count: toIntOrZero(row?.n), oldest: toNullableDate(row?.oldest) };
  }

  /** Forgets attempts older than `before` (they no longer count against any limit). */
  async deleteBefore(before: Date): Promise<number> {
    const result = await this.manager.createQueryBuilder().delete().from(LoginAttemptEntity).where('at < :before', { before }).execute();
    return result.affected ?? 0;
  }
}
