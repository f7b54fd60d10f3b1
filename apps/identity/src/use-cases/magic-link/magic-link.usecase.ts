import { Inject, Injectable } from '@nestjs/common';
import { type EndpointCall, IdentityErrors, isUuid, type MagicLinkQuery, type MagicLinkResult } from '@app/contracts';
import type { LoginChallenge } from '../../domain/records.js';
import { constantTimeEqual, sha256Base64url } from '../../domain/secrets.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import { LoginLimits } from '../../services/login-limits.service.js';
import { StartSessionCommand } from '../start-session/start-session.command.js';
import { StartSessionUseCase } from '../start-session/start-session.usecase.js';

type Call = EndpointCall<Record<string, never>, MagicLinkQuery, undefined>;

/**
 * The magic link of a login mail (docs/api.md "Logging in"). GET shows a confirmation page and
 * changes nothing (mail scanners prefetch links); POST uses the link up: same 15 minutes, single
 * use and 5-wrong-guesses rule as the code of the same challenge (one challenge carries both),
 * and it counts against the verification limits. Its use retires the address's other codes and
 * links, as a code does. A POST coming from another site (Origin, Sec-Fetch-Site) is refused:
 * nobody can be logged in to someone else's account by a forged form (login CSRF).
 */
@Injectable()
export class MagicLinkUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(StartSessionUseCase) private readonly startSession: StartSessionUseCase,
    @Inject(LoginLimits) private readonly limits: LoginLimits,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async check(call: Call): Promise<{ valid: boolean; c: string; t: string }> {
    const { c, t } = call.query;
    return { valid: (await this.usableChallenge(c, t)) !== null, c, t };
  }

  async confirm(call: Call): Promise<MagicLinkResult> {
    this.refuseCrossSite(call);
    const { c, t } = call.query;
    const challenge = isUuid(c) ? await this.store.repos.challenges.findLiveById(c.toLowerCase(), this.clock.now()) : null;
    await this.limits.admitVerification(call.ctx.ip, challenge?.email ?? `link:${c}`.slice(0, 254));
    const usable = challenge && this.matches(challenge, t) ? challenge : null;
    if (!usable?.userId) return { ok: false, reason: 'invalid' };
    const now = this.clock.now();
    if (!(await this.store.repos.challenges.markUsed(usable.id, now))) return { ok: false, reason: 'used' };
    await this.store.repos.challenges.retireLive(usable.email, now);
    const login = await this.startSession.execute(StartSessionCommand.create({ userId: usable.userId, ip: call.ctx.ip, method: 'magic_link' }));
    return { ok: true, session: login.session };
  }

  private async usableChallenge(c: string, t: string): Promise<LoginChallenge | null> {
    if (!isUuid(c)) return null;
    const challenge = await this.store.repos.challenges.findLiveById(c.toLowerCase(), this.clock.now());
    return challenge?.userId && this.matches(challenge, t) ? challenge : null;
  }

  private matches(challenge: LoginChallenge, token: string): boolean {
    return constantTimeEqual(sha256Base64url(token), challenge.linkHash);
  }

  private refuseCrossSite(call: Call): void {
    const origin = call.headers?.origin;
    const site = call.headers?.['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') throw IdentityErrors.login_cross_site();
    // `Origin: null` (a privacy-minded referrer policy) is trusted only with the browser's own Sec-Fetch-Site: same-origin.
    const sameOrigin = origin === new URL(call.ctx.baseUrl).origin || (origin === 'null' && site === 'same-origin');
    if (origin !== undefined && !sameOrigin) throw IdentityErrors.login_cross_site();
  }
}
