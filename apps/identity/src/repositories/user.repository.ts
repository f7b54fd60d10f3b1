import { randomUUID } from 'node:crypto';
import { UserEntity } from '../entities/user.entity.js';
import { BaseRepository, sql } from '@app/infra';

export class UserRepository extends BaseRepository {
  findByEmail(email: string): Promise<UserEntity | null> {
    return this.manager.findOneBy(UserEntity, { email: email.toLowerCase() });
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.manager.findOneBy(UserEntity, { id });
  }

  /** The emails of these users (absent ids are left out). */
  async emailsOf(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const { rows } = await sql(this.manager, `SELECT id::text AS id, email FROM identity.users WHERE id = ANY($1::uuid[])`, [[...ids]]);
    return new Map(rows.map((row) => [String(row.id), String(row.email)]));
  }

  /** The user with this email, created when absent (safe when two callers race). */
  async ensure(email: string, at: Date): Promise<{ user: UserEntity; created: boolean }> {
    const normalized = email.toLowerCase();
    const { rows } = await sql(
      this.manager,
      `INSERT INTO identity.users (id, email, disabled, created_at, last_login_at) VALUES ($1, $2, false, $3, NULL) ON CONFLICT DO NOTHING RETURNING id`,
      [randomUUID(), normalized, at],
    );
    const user = await this.findByEmail(normalized);
    if (!user) throw new Error(`user ${normalized} vanished after insert`);
    return { user, created: rows.length > 0 };
  }

  async recordLogin(userId: string, at: Date): Promise<void> {
    await sql(this.manager, `UPDATE identity.users SET last_login_at = $2 WHERE id = $1`, [userId, at]);
  }

  /** PATCH /admin/users sets this; ending the user's sessions and tokens is that use case's job. */
  async setDisabled(userId: string, disabled: boolean): Promise<void> {
    await sql(this.manager, `UPDATE identity.users SET disabled = $2 WHERE id = $1`, [userId, disabled]);
  }

  /** Customer deletion: of these people, those who are no longer a member anywhere go (their login challenges with them). */
  async deleteWithoutMembership(userIds: readonly string[]): Promise<number> {
    if (userIds.length === 0) return 0;
    const { rows } = await sql(
      this.manager,
      `DELETE FROM identity.users u WHERE u.id = ANY($1::uuid[]) AND NOT EXISTS (SELECT 1 FROM identity.memberships m WHERE m.user_id = u.id) RETURNING u.id`,
      [[...userIds]],
    );
    return rows.length;
  }
}
