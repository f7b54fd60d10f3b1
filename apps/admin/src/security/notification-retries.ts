import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { RetryOperatorNotifications } from '../use-cases/retry-operator-notifications/retry-operator-notifications.usecase.js';

/** Unmailed critical events are retried this often (for NOTIFY_RETRY_WINDOW_MS). */
export const NOTIFY_RETRY_EVERY_MS = 60_000;

/** The timer of each replica that retries unmailed critical security events (the claim on notified_at keeps replicas from mailing twice). */
@Injectable()
export class NotificationRetries implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;

  constructor(@Inject(RetryOperatorNotifications) private readonly retry: RetryOperatorNotifications) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.retry.execute(), NOTIFY_RETRY_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
