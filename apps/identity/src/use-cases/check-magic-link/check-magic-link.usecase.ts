import { Inject, Injectable } from '@nestjs/common';
import { magicLinkMatches } from '../../domain/magic-link.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import type { MagicLinkCommand } from './magic-link.command.js';

/**
 * GET /auth/magic (docs/api.md "Logging in"): whether the login link still works, for the
 * confirmation page. Changes nothing: mail scanners prefetch links.
 */
@Injectable()
export class CheckMagicLinkUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: MagicLinkCommand): Promise<{ valid: boolean; c: string; t: string }> {
    const challenge = command.challengeId ? await this.store.repos.challenges.findLiveById(command.challengeId, this.clock.now()) : null;
    const valid = challenge?.userId != null && magicLinkMatches(challenge, command.token);
    return { valid, c: command.query.c, t: command.query.t };
  }
}
