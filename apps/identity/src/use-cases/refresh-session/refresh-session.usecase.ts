import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, type RefreshedSession } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { sessionIsLive } from '../../domain/lifecycle.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../domain/limits.js';
import { constantTimeEqual, sha256Base64url } from '../../domain/secrets.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import type { RefreshTokenState } from '../../repositories/session.repository.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { CsrfTokens } from '../../services/csrf-tokens.service.js';
import { RefreshTokens } from '../../services/refresh-tokens.service.js';
import { SessionAccess } from '../../services/session-access.service.js';
import { EndSessionUseCase } from '../end-session/end-session.usecase.js';
import type { RefreshSessionCommand } from './refresh-session.command.js';

/**
 * Refreshing a session (docs/api.md "Sessions and CSRF"). A live refresh token is rotated: marked
 * used, its successor stored, the session's last use noted (the 12-hour idle limit counts from
 * there); the answer is the successor, a new access token and the same CSRF token.
 *
 * A rotated token presented again is reuse: the whole session ends at once, a
 * `session_token_reuse` security event (critical: mailed to the operators) is raised and the
 * answer is 401. No replay is ever answered with tokens. The only allowance is an operator's
 * REFRESH_REUSE_GRACE_SECONDS (default 0, off): within it, the token rotated immediately before
 * the session's live one (its successor, derived, see RefreshTokens) is refused with 409 and the
 * session kept, for clients that cannot help renewing concurrently; after it, reuse as above.
 *
 * Order of checks: unknown token 401; ended or expired session 401 (no alarm: nothing is left
 * to steal); reuse; then the CSRF token when required (403).
 */
@Injectable()
export class RefreshSessionUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(RefreshTokens) private readonly refreshTokens: RefreshTokens,
    @Inject(SessionAccess) private readonly access: SessionAccess,
    @Inject(CsrfTokens) private readonly csrf: CsrfTokens,
    @Inject(EndSessionUseCase) private readonly endSession: EndSessionUseCase,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(command: RefreshSessionCommand): Promise<RefreshedSession> {
    if (!command.refreshToken) throw CommonErrors.refresh_invalid();
    const token = command.refreshToken;
    const now = this.clock.now();
    const state = await this.store.repos.sessions.findRefreshToken(sha256Base64url(token));
    if (!state || !this.usable(state, now)) throw CommonErrors.refresh_invalid();
    const successor = await this.refreshTokens.successorOf(token);

    if (state.rotatedAt) return this.presentedAgain(command, state, successor, now);
    await this.checkCsrf(command, state);
    const rotated = await this.store.transaction((repos) =>
      repos.sessions.rotate({ tokenHash: state.tokenHash, nextHash: sha256Base64url(successor), sessionId: state.sessionId, at: now }),
    );
    // Lost a race with a concurrent rotation of the same token: presented again, like any replay.
    if (!rotated) {
      const again = await this.store.repos.sessions.findRefreshToken(state.tokenHash);
      if (!again?.rotatedAt) throw CommonErrors.refresh_invalid();
      return this.presentedAgain(command, again, successor, now);
    }
    return this.answer(state, successor, now);
  }

  private usable(state: RefreshTokenState, now: Date): boolean {
    return sessionIsLive(state, now) && !state.userDisabled && state.customerStatus === 'active';
  }

  private async presentedAgain(command: RefreshSessionCommand, state: RefreshTokenState, successor: string, now: Date): Promise<RefreshedSession> {
    const graceMs = this.config.refreshReuseGraceSeconds * 1000;
    const rotatedAgo = now.getTime() - state.rotatedAt!.getTime();
    if (graceMs > 0 && rotatedAgo <= graceMs) {
      const next = await this.store.repos.sessions.findRefreshToken(sha256Base64url(successor));
      if (next && next.sessionId === state.sessionId && !next.rotatedAt) {
        await this.checkCsrf(command, state);
        throw CommonErrors.refresh_raced();
      }
    }
    await this.reuse(command, state, now);
    throw CommonErrors.refresh_reused();
  }

  private async reuse(command: RefreshSessionCommand, state: RefreshTokenState, now: Date): Promise<void> {
    const ended = await this.endSession.execute(state.sessionId, 'refresh_reuse');
    if (!ended) return; // a concurrent request already ended it and raised the event
    await this.audit.securityEvent({
      kind: 'session_token_reuse',
      severity: 'critical',
      ip: command.ip,
      domain: state.customerDomain,
      detail: {
        session_id: state.sessionId,
        user_id: state.userId,
        email: state.email,
        rotated_at: state.rotatedAt!.toISOString(),
        presented_at: now.toISOString(),
        user_agent: command.userAgent,
        action: 'session revoked',
      },
    });
  }

  private async checkCsrf(command: RefreshSessionCommand, state: RefreshTokenState): Promise<void> {
    if (!command.requireCsrf) return;
    const expected = await this.csrf.forSession(state.sessionId);
    if (!command.csrfToken || !constantTimeEqual(command.csrfToken, expected)) throw CommonErrors.csrf_invalid();
  }

  private async answer(state: RefreshTokenState, refresh: string, now: Date): Promise<RefreshedSession> {
    const standing = await this.access.standing(this.store.repos, state.userId, state.customerId);
    if (!standing.role) throw CommonErrors.refresh_invalid(); // no longer a member there (its sessions were ended)
    const issued = await this.access.issue({
      userId: state.userId,
      sessionId: state.sessionId,
      customer: { id: state.customerId, domain: state.customerDomain },
      role: standing.role,
      admin: standing.admin,
      now,
    });
    const remaining = Math.max(1, Math.floor((state.expiresAt.getTime() - now.getTime()) / 1000));
    return {
      body: { csrf_token: issued.csrf, access_expires_at: issued.expiresAt.toISOString(), session_expires_at: state.expiresAt.toISOString() },
      session: { refresh, csrf: issued.csrf, access: issued.access, accessMaxAgeSeconds: ACCESS_TOKEN_TTL_SECONDS, refreshMaxAgeSeconds: remaining },
    };
  }
}
