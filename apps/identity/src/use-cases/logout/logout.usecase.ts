import { Inject, Injectable } from '@nestjs/common';
import { IdentityErrors, type RequestContext } from '@app/contracts';
import { requirePrincipal } from '../../domain/access.js';
import { EndSessionUseCase } from '../end-session/end-session.usecase.js';

/** POST /auth/logout: ends the calling session (the endpoint clears the three cookies). */
@Injectable()
export class LogoutUseCase {
  constructor(@Inject(EndSessionUseCase) private readonly endSession: EndSessionUseCase) {}

  async execute(ctx: RequestContext): Promise<void> {
    const principal = requirePrincipal(ctx);
    if (principal.kind !== 'session') throw IdentityErrors.logout_session_only();
    await this.endSession.execute(principal.credentialId, 'logout');
  }
}
