import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { JsonLogger } from '@app/infra';
import { LOGIN_RECORDS_CLEANUP_EVERY_MS, LOGIN_RECORDS_KEEP_MS } from '../domain/limits.js';
import { IdentityStore } from '../repositories/identity.store.js';
import { Clock } from './clock.js';

/**
 * Deletes login attempts and login challenges older than a day (the limits look back one
 * hour; a challenge lives 15 minutes), once an hour in every replica (idempotent deletes).
 */
@Injectable()
export class IdentityHousekeeping implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private readonly logger = new JsonLogger('identity');

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.run(), LOGIN_RECORDS_CLEANUP_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async run(): Promise<{ attempts: number; challenges: number }> {
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
