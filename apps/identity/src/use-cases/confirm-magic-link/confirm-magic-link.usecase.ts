import { Inject, Injectable } from '@nestjs/common';
import { IdentityErrors, type MagicLinkResult } from '@app/contracts';
import { magicLinkMatches } from '../../domain/magic-link.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import { LoginLimits } from '../../services/login-limits.service.js';
import type { MagicLinkCommand } from '../check-magic-link/magic-link.command.js';
import { StartSessionCommand } from '../start-session/start-session.command.js';
import { StartSessionUseCase } from '../start-session/start-session.usecase.js';

/**
 * POST /auth/magic (docs/api.md "Logging in") uses the login link up: same 15 minutes, single
 * use and 5-wrong-guesses rule as the code of the same challenge (one challenge carries both),
 * and it counts against the verification limits. Its use retires the address's other codes and
 * links, as a code does. A POST coming from another site (Origin, Sec-Fetch-Site) is refused:
 * nobody can be logged in to someone else's account by a forged form (login CSRF).
 */
@Injectable()
export class ConfirmMagicLinkUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(StartSessionUseCase) private readonly startSession: StartSessionUseCase,
    @Inject(LoginLimits) private readonly limits: LoginLimits,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: MagicLinkCommand): Promise<MagicLinkResult> {
    refuseCrossSite(command);
    const challenge = command.challengeId ? await this.store.repos.challenges.findLiveById(command.challengeId, this.clock.now()) : null;
    await this.limits.admitVerification(command.ip, challenge?.email ?? `link:${command.query.c}`.slice(0, 254));
    const usable = challenge && magicLinkMatches(challenge, command.token) ? challenge : null;
    if (!usable?.userId) return { ok: false, reason: 'invalid' };
    const now = this.clock.now();
    if (!(await this.store.repos.challenges.markUsed(usable.id, now))) return { ok: false, reason: 'used' };
    await this.store.repos.challenges.retireLive(usable.email, now);
    const login = await this.startSession.execute(StartSessionCommand.create({ userId: usable.userId, ip: command.ip, method: 'magic_link' }));
    return { ok: true, session: login.session };
  }
}

function refuseCrossSite(command: MagicLinkCommand): void {
  const { origin, fetchSite: site } = command;
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw IdentityErrors.login_cross_site();
  // `Origin: null` (a privacy-minded referrer policy) is trusted only with the browser's own Sec-Fetch-Site: same-origin.
  const sameOrigin = origin === new URL(command.baseUrl).origin || (origin === 'null' && site === 'same-origin');
  if (origin !== undefined && !sameOrigin) throw IdentityErrors.login_cross_site();
}
