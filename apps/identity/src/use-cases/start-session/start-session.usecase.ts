import { Inject, Injectable } from '@nestjs/common';
import { IdentityErrors, type VerifiedLogin } from '@app/contracts';
import { randomUUID } from 'node:crypto';
import { personScopes } from '../../domain/access.js';
import { ACCESS_TOKEN_TTL_SECONDS, SESSION_TOTAL_LIMIT_SECONDS } from '../../domain/limits.js';
import { randomToken, sha256Base64url } from '../../domain/secrets.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Administrators } from '../../services/administrators.service.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { SessionAccess } from '../../services/session-access.service.js';
import { identityObject } from '../../domain/views.js';
import type { StartSessionCommand } from './start-session.command.js';

/**
 * Starting a console session (docs/api.md "Sessions and CSRF"): creates the session (7 days total,
 * 12 hours idle), its first refresh token (256 random bits, stored as SHA-256), derives the CSRF
 * token and signs the 15-minute access token. Shared by code verification and the magic link. Every
 * login of an administrator raises an `admin_login` security event (info).
 */
@Injectable()
export class StartSessionUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(SessionAccess) private readonly access: SessionAccess,
    @Inject(Administrators) private readonly administrators: Administrators,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: StartSessionCommand): Promise<VerifiedLogin> {
    const now = this.clock.now();
    const refreshToken = randomToken(32);
    const started = await this.store.transaction(async (repos) => {
      const user = await repos.users.findById(command.userId);
      if (!user || user.disabled) throw IdentityErrors.login_code_invalid();
      const target = await repos.memberships.preferredForLogin(user.id);
      if (!target) throw IdentityErrors.login_code_invalid();
      const admin = await this.administrators.levelOf(repos, user.id);
      const sessionId = randomUUID();
      await repos.sessions.create({
        id: sessionId,
        userId: user.id,
        customerId: target.customer.id,
        createdAt: now,
        expiresAt: new Date(now.getTime() + SESSION_TOTAL_LIMIT_SECONDS * 1000),
        refreshTokenHash: sha256Base64url(refreshToken),
      });
      await repos.users.recordLogin(user.id, now);
      const memberships = await repos.memberships.listForUser(user.id);
      return { user, customer: target.customer, role: target.role, admin, sessionId, memberships };
    });

    const issued = await this.access.issue({
      userId: started.user.id,
      sessionId: started.sessionId,
      customer: started.customer,
      role: started.role,
      admin: started.admin,
      now,
    });
    if (started.admin) {
      await this.audit.securityEvent({
        kind: 'admin_login',
        severity: 'info',
        ip: command.ip,
        domain: started.customer.domain,
        detail: { user_id: started.user.id, email: started.user.email, admin: started.admin, method: command.method, session_id: started.sessionId },
      });
    }
    return {
      identity: identityObject({
        email: started.user.email,
        customerDomain: started.customer.domain,
        role: started.role,
        scopes: personScopes(started.role, started.admin),
        admin: started.admin,
        csrfToken: issued.csrf,
        memberships: started.memberships,
      }),
      session: {
        refresh: refreshToken,
        csrf: issued.csrf,
        access: issued.access,
        accessMaxAgeSeconds: ACCESS_TOKEN_TTL_SECONDS,
        refreshMaxAgeSeconds: SESSION_TOTAL_LIMIT_SECONDS,
      },
    };
  }
}
