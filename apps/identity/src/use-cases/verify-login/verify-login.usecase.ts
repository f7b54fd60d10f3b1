import { Inject, Injectable } from '@nestjs/common';
import { IdentityErrors, type VerifiedLogin } from '@app/contracts';
import { LOGIN_MAX_WRONG_GUESSES } from '../../domain/limits.js';
import { loginCodeMatches } from '../../domain/secrets.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { LoginLimits } from '../../services/login-limits.service.js';
import { StartSessionCommand } from '../start-session/start-session.command.js';
import { StartSessionUseCase } from '../start-session/start-session.usecase.js';
import type { VerifyLoginCommand } from './verify-login.command.js';

/**
 * Verifying a login code (docs/api.md "Logging in"). The attempt first counts against the
 * verification limits (LoginLimits: per client address and per email). Then it takes one of the 5
 * allowed attempts from each live challenge of the address (atomically, so parallel guessing gains
 * nothing) and compares. A match is marked used (single use, first caller wins) and the address's
 * other live challenges are retired; then the session starts. Anything else: 401. A code killed by
 * its fifth wrong guess raises a `login_code_failures` security event (warn).
 */
@Injectable()
export class VerifyLoginUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(StartSessionUseCase) private readonly startSession: StartSessionUseCase,
    @Inject(LoginLimits) private readonly limits: LoginLimits,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: VerifyLoginCommand): Promise<VerifiedLogin> {
    if (command.ip) await this.limits.admitVerification(command.ip, command.email);
    const now = this.clock.now();
    const challenges = await this.store.repos.challenges.reserveAttempts(command.email, now);
    let matched: (typeof challenges)[number] | null = null;
    for (const challenge of challenges) {
      if (loginCodeMatches(command.code, challenge.codeSalt, challenge.codeHash) && !matched) matched = challenge;
    }
    const winner = matched;
    if (!winner?.userId || !(await this.store.repos.challenges.markUsed(winner.id, now))) {
      const killed = challenges.filter((c) => c.attempts >= LOGIN_MAX_WRONG_GUESSES && c.id !== winner?.id);
      if (killed.length) {
        await this.audit.securityEvent({
          kind: 'login_code_failures',
          severity: 'warn',
          ip: command.ip,
          domain: null,
          detail: {
            email: command.email,
            challenge_ids: killed.map((c) => c.id),
            wrong_guesses: LOGIN_MAX_WRONG_GUESSES,
            invited: killed.some((c) => c.userId !== null),
          },
        });
      }
      throw IdentityErrors.login_code_invalid();
    }
    await this.store.repos.challenges.retireLive(command.email, now);
    return this.startSession.execute(StartSessionCommand.create({ userId: winner.userId, ip: command.ip, method: 'code' }));
  }
}
