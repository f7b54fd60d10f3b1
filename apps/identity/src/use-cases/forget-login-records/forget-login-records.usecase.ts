import { Inject, Injectable } from '@nestjs/common';
import { JsonLogger } from '@app/infra';
import { LOGIN_RECORDS_KEEP_MS } from '../../domain/limits.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';

/**
 * Deletes login attempts and login challenges older than LOGIN_RECORDS_KEEP_MS (the limits look
 * back one hour; a challenge lives 15 minutes). Idempotent deletes, so every replica may run it
 * (schedules/login-records.schedule.ts). No input: the cut-off is the clock's.
 */
@Injectable()
export class ForgetLoginRecordsUseCase {
  private readonly logger = new JsonLogger('identity');

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<{ attempts: number; challenges: number }> {
    const before = new Date(this.clock.now().getTime() - LOGIN_RECORDS_KEEP_MS);
    try {
      const attempts = await this.store.repos.attempts.deleteBefore(before);
      const challenges = await this.store.repos.challenges.deleteCreatedBefore(before);
      return { attempts, challenges };
    } catch (err) {
      this.logger.warn('login records clean-up failed', { error: err instanceof Error ? err.message : String(err) });
      return { attempts: 0, challenges: 0 };
    }
  }
}
