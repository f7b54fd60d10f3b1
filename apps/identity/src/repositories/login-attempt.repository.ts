import type { LoginAttemptKind } from '../domain/records.js';
import { BaseRepository, sql, toIntOrZero, toNullableDate } from '@app/infra';

/** The column each limit counts by (never a caller's text in the statement). */
const COUNTED_BY = { ip: 'ip', email: 'email' } as const;

export class LoginAttemptRepository extends BaseRepository {
  async record(input: { kind: LoginAttemptKind; ip: string; email: string; at: Date }): Promise<void> {
    await sql(this.manager, `INSERT INTO identity.login_attempts (kind, ip, email, at) VALUES ($1, $2, $3, $4)`, [input.kind, input.ip, input.email, input.at]);
  }

  /** Attempts of `kind` by one client address or one email since `since`, and the oldest of them. */
  async countSince(input: { kind: LoginAttemptKind; by: 'ip' | 'email'; value: string; since: Date }): Promise<{ count: number; oldest: Date | null }> {
    const { rows } = await sql(
      this.manager,
      `SELECT COUNT(*) AS n, MIN(at) AS oldest FROM identity.login_attempts WHERE kind = $1 AND ${COUNTED_BY[input.by]} = $2 AND at > $3`,
      [input.kind, input.value, input.since],
    );
    return { count: toIntOrZero(rows[0]?.n), oldest: toNullableDate(rows[0]?.oldest) };
  }

  /** Forgets attempts older than `before` (they no longer count against any limit). */
  async deleteBefore(before: Date): Promise<number> {
    return (await sql(this.manager, `DELETE FROM identity.login_attempts WHERE at < $1`, [before])).affected;
  }
}
