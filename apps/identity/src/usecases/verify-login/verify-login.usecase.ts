import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, ServiceError, type VerifiedLogin } from '@app/contracts';
import { INVALID_CODE_MESSAGE } from '../../domain/limits.js';
import { loginCodeMatches } from '../../domain/secrets.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import { StartSessionCommand } from '../start-session/start-session.command.js';
import { StartSessionUseCase } from '../start-session/start-session.usecase.js';
import type { VerifyLoginCommand } from './verify-login.command.js';

/**
 * SPEC "Console login" 3-4. Every attempt first takes one of the 5 allowed attempts from each
 * live challenge of the address (atomically, so parallel guessing gains nothing), then
 * compares. A match is marked used (single use, first caller wins) and the address's other
 * live challenges are retired; then the session starts. Anything else: 401.
 */
@Injectable()
export class VerifyLoginUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(StartSessionUseCase) private readonly startSession: StartSessionUseCase,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: VerifyLoginCommand): Promise<VerifiedLogin> {
    const now = this.clock.now();
    const challenges = await this.store.repos.challenges.reserveAttempts(command.email, now);
    let matched: (typeof challenges)[number] | null = null;
    for (const challenge of challenges) {
      if (loginCodeMatches(command.code, challenge.codeSalt, challenge.codeHash) && !matched) matched = challenge;
    }
    if (!matched?.userId || !(await this.store.repos.challenges.markUsed(matched.id, now))) {
      throw new ServiceError(ErrorCode.Unauthenticated, INVALID_CODE_MESSAGE);
    }
    await this.store.repos.challenges.retireLive(command.email, now);
    return this.startSession.execute(StartSessionCommand.create({ userId: matched.userId, ip: command.ip }));
  }
}
