import type { LoginChallenge } from '../domain/records.js';
import { LOGIN_MAX_WRONG_GUESSES } from '../domain/limits.js';
import { BaseRepository, type Row, sql, toDate, toInt, toIntOrZero, toNullableDate } from '@app/infra';

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
    await sql(
      this.manager,
      `INSERT INTO identity.login_challenges (id, email, user_id, code_salt, code_hash, link_hash, attempts, created_at, expires_at, used_at)
       VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, NULL)`,
      [challenge.id, challenge.email, challenge.userId, challenge.codeSalt, challenge.codeHash, challenge.linkHash, challenge.createdAt, challenge.expiresAt],
    );
  }

  /** Challenges issued for the address since `since`, and when the oldest of them was issued. */
  async countIssuedSince(email: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
    const { rows } = await sql(
      this.manager,
      `SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM identity.login_challenges WHERE email = $1 AND created_at > $2`,
      [email, since],
    );
    return { count: toIntOrZero(rows[0]?.n), oldest: toNullableDate(rows[0]?.oldest) };
  }

  /**
   * Takes one verification attempt from every live challenge of the address, atomically, and
   * returns them for comparison. A challenge whose attempts are used up is no longer live, so
   * concurrent guesses cannot exceed the limit.
   */
  async reserveAttempts(email: string, now: Date): Promise<ReservedAttempt[]> {
    const { rows } = await sql(
      this.manager,
      `UPDATE identity.login_challenges SET attempts = attempts + 1
        WHERE email = $1 AND used_at IS NULL AND expires_at > $2 AND attempts < $3
        RETURNING id, user_id, code_salt, code_hash, attempts`,
      [email, now, LOGIN_MAX_WRONG_GUESSES],
    );
    return rows.map((r) => ({
      id: String(r.id),
      userId: r.user_id === null ? null : String(r.user_id),
      codeSalt: String(r.code_salt),
      codeHash: String(r.code_hash),
      attempts: toInt(r.attempts),
    }));
  }

  /** Single use: true only for the caller that marked it. */
  async markUsed(id: string, at: Date): Promise<boolean> {
    return (await sql(this.manager, `UPDATE identity.login_challenges SET used_at = $2 WHERE id = $1 AND used_at IS NULL`, [id, at])).affected > 0;
  }

  /** After a successful login the other codes and links mailed to the address stop working. */
  async retireLive(email: string, at: Date): Promise<void> {
    await sql(this.manager, `UPDATE identity.login_challenges SET used_at = $2 WHERE email = $1 AND used_at IS NULL AND expires_at > $2`, [email, at]);
  }

  /** Challenges older than `before` are of no use any more (the hourly limit looks back one hour). */
  async deleteCreatedBefore(before: Date): Promise<number> {
    return (await sql(this.manager, `DELETE FROM identity.login_challenges WHERE created_at < $1`, [before])).affected;
  }

  /** The challenge a magic link names, when it is still usable. */
  async findLiveById(id: string, now: Date): Promise<LoginChallenge | null> {
    const { rows } = await sql(
      this.manager,
      `SELECT id, email, user_id, code_salt, code_hash, link_hash, attempts, created_at, expires_at, used_at
         FROM identity.login_challenges
        WHERE id = $1 AND used_at IS NULL AND expires_at > $2 AND attempts < $3`,
      [id, now, LOGIN_MAX_WRONG_GUESSES],
    );
    return rows[0] ? toLoginChallenge(rows[0]) : null;
  }
}

function toLoginChallenge(r: Row): LoginChallenge {
  return {
    id: String(r.id),
    email: String(r.email),
    userId: r.user_id === null ? null : String(r.user_id),
    codeSalt: String(r.code_salt),
    codeHash: String(r.code_hash),
    linkHash: String(r.link_hash),
    attempts: toInt(r.attempts),
    createdAt: toDate(r.created_at),
    expiresAt: toDate(r.expires_at),
    usedAt: toNullableDate(r.used_at),
  };
}
