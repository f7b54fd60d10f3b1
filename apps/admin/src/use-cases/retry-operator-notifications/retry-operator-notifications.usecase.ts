import { Inject, Injectable } from '@nestjs/common';
import { JsonLogger } from '@app/infra';
import { AdminStore } from '../../repositories/admin.store.js';
import { Clock } from '../../services/clock.js';
import { NotifyOperators } from '../notify-operators/notify-operators.usecase.js';

/** Unmailed critical events are retried for this long (every NOTIFY_RETRY_EVERY_MS: security/notification-retries.ts). */
export const NOTIFY_RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Mails the critical security events of the last day that are not mailed yet (a failure is logged; the next run tries again). */
@Injectable()
export class RetryOperatorNotifications {
  private readonly logger = new JsonLogger('admin');

  constructor(
    @Inject(AdminStore) private readonly adminStore: AdminStore,
    @Inject(NotifyOperators) private readonly notifyOperators: NotifyOperators,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<void> {
    try {
      const pending = await this.adminStore.repos.securityEvents.unnotifiedCritical(new Date(this.clock.now().getTime() - NOTIFY_RETRY_WINDOW_MS));
      for (const event of pending) await this.notifyOperators.execute(event);
    } catch (err) {
      this.logger.warn('security event notification retry failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}
