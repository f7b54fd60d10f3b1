import { Inject, Injectable } from '@nestjs/common';
import type { SandboxTokens } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';

/** GET /docs: the sandbox's current public tokens (null without a sandbox); see EnsureSandboxTokensUseCase. */
@Injectable()
export class ListSandboxTokensUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(): Promise<SandboxTokens | null> {
    if (!this.config.sandboxDomain) return null;
    const sandbox = await this.store.repos.customers.findByDomain(this.config.sandboxDomain);
    if (!sandbox?.isSandbox) return null;
    const now = this.clock.now();
    const tokens = (await this.store.repos.sandboxTokens.list()).filter((t) => !t.revokedAt && t.expiresAt > now);
    return {
      domain: sandbox.domain,
      tokens: tokens.map((t) => ({ bundle: t.bundle, scopes: [...t.scopes], token: t.token, expires_at: t.expiresAt.toISOString() })),
    };
  }
}
