import { Inject, Injectable } from '@nestjs/common';
import { IdentityErrors } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import type { LoginAttemptKind } from '../domain/records.js';
import { LOGIN_RATE_WINDOW_MS } from '../domain/limits.js';
import { IdentityStore } from '../repositories/identity.store.js';
import { AuditTrail } from './audit-trail.service.js';
import { Clock } from './clock.js';

/** Seconds until the oldest counted attempt leaves the one-hour window (at least 1). */
export function retryAfterSeconds(oldest: Date | null, now: Date, windowMs = LOGIN_RATE_WINDOW_MS): number {
  const freeAt = (oldest?.getTime() ?? now.getTime()) + windowMs;
  return Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
}

interface Refusal {
  readonly limit: 'login_per_ip' | 'verify_per_ip' | 'verify_per_email';
  readonly max: number;
  readonly retryAfter: number;
  /** This attempt is the first one over the limit in the window (raise the security event once). */
  readonly first: boolean;
}

/**
 * The configurable login limits besides the fixed ones (5 codes per address per hour, 5 wrong
 * guesses per code), counted in the database so that every identity replica agrees:
 * LOGIN_RATE_PER_IP_PER_HOUR for POST /auth/login per client address,
 * LOGIN_VERIFY_RATE_PER_IP_PER_HOUR and LOGIN_VERIFY_RATE_PER_EMAIL_PER_HOUR for code
 * verifications and magic-link confirmations. Every attempt counts, refused ones included, in
 * a sliding one-hour window; over a limit: 429 with Retry-After, and a `login_rate_limited`
 * security event (warn) for the first refused attempt.
 */
@Injectable()
export class LoginLimits {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** POST /auth/login from `ip` for `email`: records it, throws 429 past the per-IP limit. */
  async admitLogin(ip: string, email: string): Promise<void> {
    const refusal = await this.admit('login', ip, email, [{ by: 'ip', limit: 'login_per_ip', max: this.config.loginRatePerIpPerHour }]);
    if (refusal) await this.refuse(refusal, ip, email, IdentityErrors.login_ip_rate_limited);
  }

  /** A code verification or magic-link confirmation: records it, throws 429 past either limit. */
  async admitVerification(ip: string, email: string): Promise<void> {
    const refusal = await this.admit('verify', ip, email, [
      { by: 'ip', limit: 'verify_per_ip', max: this.config.loginVerifyRatePerIpPerHour },
      { by: 'email', limit: 'verify_per_email', max: this.config.loginVerifyRatePerEmailPerHour },
    ]);
    if (refusal) await this.refuse(refusal, ip, email, IdentityErrors.verify_rate_limited);
  }

  private async admit(
    kind: LoginAttemptKind,
    ip: string,
    email: string,
    checks: ReadonlyArray<{ by: 'ip' | 'email'; limit: Refusal['limit']; max: number }>,
  ): Promise<Refusal | null> {
    const now = this.clock.now();
    const since = new Date(now.getTime() - LOGIN_RATE_WINDOW_MS);
    return this.store.transaction(async (repos) => {
      // Same order everywhere (ip, then email): concurrent attempts take turns, never deadlock.
      for (const check of checks) await repos.locks.lockForTransaction(`identity.rate:${kind}:${check.by}:${check.by === 'ip' ? ip : email}`);
      let refusal: Refusal | null = null;
      for (const check of checks) {
        const window = await repos.attempts.countSince({ kind, by: check.by, value: check.by === 'ip' ? ip : email, since });
        if (window.count >= check.max) {
          refusal = { limit: check.limit, max: check.max, retryAfter: retryAfterSeconds(window.oldest, now), first: window.count === check.max };
          break;
        }
      }
      await repos.attempts.record({ kind, ip, email, at: now });
      return refusal;
    });
  }

  private async refuse(refusal: Refusal, ip: string, email: string, error: typeof IdentityErrors.verify_rate_limited): Promise<never> {
    if (refusal.first) {
      await this.audit.securityEvent({
        kind: 'login_rate_limited',
        severity: 'warn',
        ip,
        domain: null,
        detail: { limit: refusal.limit, max_per_hour: refusal.max, email },
      });
    }
    throw error({ 'Retry-After': String(refusal.retryAfter) });
  }
}
