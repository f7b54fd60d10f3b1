import type { LoginChallenge } from '../domain/records.js';
import { LoginChallengeEntity } from '../entities/login-challenge.entity.js';
import { LOGIN_MAX_WRONG_GUESSES } from '../domain/limits.js';
import { BaseRepository, toInt, toIntOrZero, toNullableDate } from '@app/infra';

export interface NewLoginChallenge {
  readonly id: string;
  readonly email: string;
  readonly userId: string | null;
  readonly codeSalt: string;
  readonly codeHash: string;
  readonly linkHash: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export interface ReservedAttempt {
  readonly id: string;
  readonly userId: string | null;
  readonly codeSalt: string;
  readonly codeHash: string;
  /** Attempts taken including this one (the challenge dies at LOGIN_MAX_WRONG_GUESSES). */
  readonly attempts: number;
}

export class LoginChallengeRepository extends BaseRepository {
  async insert(challenge: NewLoginChallenge): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .insert()
      .into(LoginChallengeEntity)
      .values({ ...challenge, attempts: 0, usedAt: null })
      .execute();
  }

  /** Challenges issued for the address since `since`, and when the oldest of them was issued. */
  async countIssuedSince(email: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
    const row = await this.manager
      .createQueryBuilder(LoginChallengeEntity, 'c')
      .select('COUNT(*)', 'n')
      .addSelect('MIN(c.created_at)', 'oldest')
      .where('c.email = :email AND c.created_at > :since', { email, since })
      .getRawOne<{ n: unknown; oldest: unknown }>();
    return { count: toIntOrZero(row?.n), oldest: toNullableDate(row?.oldest) };
  }

  /**
   * Takes one verification attempt from every live challenge of the address, atomically, and
   * returns them for comparison. A challenge whose attempts are used up is no longer live, so
   * concurrent guesses cannot exceed the limit.
   */
  async reserveAttempts(email: string, now: Date): Promise<ReservedAttempt[]> {
    const result = await this.manager
      .createQueryBuilder()
      .update(LoginChallengeEntity)
      .set({ attempts: () => 'attempts + 1' })
      .where('email = :email AND used_at IS NULL AND expires_at > :now AND attempts < :max', { email, now, max: LOGIN_MAX_WRONG_GUESSES })
      .returning(['id', 'userId', 'codeSalt', 'codeHash', 'attempts']) // property paths; raw rows carry column names
      .execute();
    const rows = (Array.isArray(result.raw) ? result.raw : []) as Array<{
      id: string;
      user_id: string | null;
      code_salt: string;
      code_hash: string;
      attempts: unknown;
    }>;
    return rows.map((r) => ({ id: r.id, userId: r.user_id, codeSalt: r.code_salt, codeHash: r.code_hash, attempts: toInt(r.attempts) }));
  }

  /** Single use: true only for the caller that marked it. */
  async markUsed(id: string, at: Date): Promise<boolean> {
    const result = await this.manager
      .createQueryBuilder()
      .update(LoginChallengeEntity)
      .set({ usedAt: at })
      .where('id = :id AND used_at IS NULL', { id })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** After a successful login the other codes and links mailed to the address stop working. */
  async retireLive(email: string, at: Date): Promise<void> {
    await this.manager
      .createQueryBuilder()
      .update(LoginChallengeEntity)
      .set({ usedAt: at })
      .where('email = :email AND used_at IS NULL AND expires_at > :at', { email, at })
      .execute();
  }

  /** Challenges older than `before` are of no use any more (the hourly limit looks back one hour). */
  async deleteCreatedBefore(before: Date): Promise<number> {
    const result = await this.manager.createQueryBuilder().delete().from(LoginChallengeEntity).where('created_at < :before', { before }).execute();
    return result.affected ?? 0;
  }

  /** The challenge a magic link names, when it is still usable. */
  findLiveById(id: string, now: Date): Promise<LoginChallenge | null> {
    return this.manager
      .createQueryBuilder(LoginChallengeEntity, 'c')
      .where('c.id = :id AND c.used_at IS NULL AND c.expires_at > :now AND c.attempts < :max', { id, now, max: LOGIN_MAX_WRONG_GUESSES })
      .getOne();
  }
}
