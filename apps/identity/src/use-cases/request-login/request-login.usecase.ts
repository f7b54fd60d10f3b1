import { Inject, Injectable } from '@nestjs/common';
import { IdentityErrors, type LoginResponse } from '@app/contracts';
import { randomUUID } from 'node:crypto';
import { LOGIN_ACCEPTED, LOGIN_CODE_TTL_MS, LOGIN_CODES_PER_HOUR, LOGIN_RATE_WINDOW_MS } from '../../domain/limits.js';
import { generateLoginCode, hashLoginCode, randomToken, sha256Base64url } from '../../domain/secrets.js';
import { IdentityStore, type IdentityRepositories } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import { IdentityMail, type LoginMail } from '../../services/identity-mail.service.js';
import { LoginLimits, retryAfterSeconds } from '../../services/login-limits.service.js';
import type { RequestLoginCommand } from './request-login.command.js';

const NO_USER = '00000000-0000-0000-0000-000000000000';

/**
 * Asking for a login code (docs/api.md "Logging in"). Invited or not, the caller sees the same
 * answer and the app does the same work: count against the hourly limit, draw a code and a link
 * token, hash both and store a challenge. Only an invited, enabled person's challenge can ever
 * verify, and only they get a mail. The limit (5 per address per hour) applies to both alike, under
 * a per-address advisory lock so that concurrent requests cannot exceed it; before it, the
 * per-client-address limit (LOGIN_RATE_PER_IP_PER_HOUR, LoginLimits).
 */
@Injectable()
export class RequestLoginUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(IdentityMail) private readonly mail: IdentityMail,
    @Inject(LoginLimits) private readonly limits: LoginLimits,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: RequestLoginCommand): Promise<LoginResponse> {
    if (command.ip) await this.limits.admitLogin(command.ip, command.email);
    const mail = await this.store.transaction((repos) => this.issueChallenge(repos, command.email), { lock: `identity.login:${command.email}` });
    if (mail) await this.mail.sendLogin(mail);
    return { ...LOGIN_ACCEPTED };
  }

  private async issueChallenge(repos: IdentityRepositories, email: string): Promise<LoginMail | null> {
    const now = this.clock.now();
    const window = await repos.challenges.countIssuedSince(email, new Date(now.getTime() - LOGIN_RATE_WINDOW_MS));
    if (window.count >= LOGIN_CODES_PER_HOUR) {
      throw IdentityErrors.login_rate_limited({ 'Retry-After': String(retryAfterSeconds(window.oldest, now)) });
    }

    const invitedUserId = await this.invitedUser(repos, email);
    const challengeId = randomUUID();
    const code = generateLoginCode();
    const codeSalt = randomToken(16);
    const linkToken = randomToken(32);
    await repos.challenges.insert({
      id: challengeId,
      email,
      userId: invitedUserId,
      codeSalt,
      codeHash: hashLoginCode(code, codeSalt),
      linkHash: sha256Base64url(linkToken),
      createdAt: now,
      expiresAt: new Date(now.getTime() + LOGIN_CODE_TTL_MS),
    });
    return invitedUserId ? { to: email, challengeId, code, linkToken } : null;
  }

  /**
   * An invited person: an enabled user with at least one membership in an active customer.
   * Both lookups run for unknown addresses too (with an id that matches nothing), so the two
   * branches issue the same queries.
   */
  private async invitedUser(repos: IdentityRepositories, email: string): Promise<string | null> {
    const user = await repos.users.findByEmail(email);
    const memberships = await repos.memberships.listForUser(user?.id ?? NO_USER);
    if (!user || user.disabled) return null;
    // `.invalid` (RFC 2606) addresses are system people (the sandbox tokens' owner): never mailed, never logged in.
    if (email.endsWith('.invalid')) return null;
    return memberships.some((m) => m.customerStatus === 'active') ? user.id : null;
  }
}
