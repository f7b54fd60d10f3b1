import { Inject, Injectable } from '@nestjs/common';
import { JsonLogger, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { personScopes } from '../../domain/access.js';
import { DAY_MS, SANDBOX_TOKEN_DAYS, SANDBOX_TOKEN_RENEW_DAYS } from '../../domain/limits.js';
import type { Customer } from '../../domain/records.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import type { SandboxBundle, StoredSandboxToken } from '../../repositories/sandbox-token.repository.js';
import { Clock } from '../../services/clock.js';
import { SigningKeys } from '../../services/signing-keys.service.js';
import { CreateTokenCommand } from '../create-token/create-token.command.js';
import { CreateTokenUseCase } from '../create-token/create-token.usecase.js';

export const SANDBOX_BUNDLES: readonly SandboxBundle[] = ['read-only', 'uploader', 'full'];
/**
 * The person the public sandbox tokens act as: an editor of the sandbox (so `full` is within
 * its ceiling). `.invalid` (RFC 2606) can never receive mail, so nobody can log in as it.
 */
export const SANDBOX_TOKEN_OWNER = 'public-tokens@sandbox.invalid';
const SANDBOX_LOCK = 'identity.sandbox-tokens';
const SYSTEM_ACTOR = 'system';

/**
 * The sandbox's public tokens (the SANDBOX_DOMAIN customer, shown on /docs; docs/api.md "Sandbox
 * and documentation"). Tokens are otherwise shown once and only their id is stored; these three are
 * public by design, so their value is kept (identity.sandbox_tokens) for the documentation page.
 *
 * It runs at start-up (after provisioning), idempotent across replicas (advisory lock):
 * a token is issued again when it is missing, revoked, expires within 30 days, was issued for
 * another PUBLIC_URL or by a key no longer published. Each lives 365 days. What sandbox
 * credentials cannot do is the gateway's business (notInSandbox endpoints: the admin API,
 * token and member management; the smaller log-file limit).
 */
@Injectable()
export class EnsureSandboxTokensUseCase {
  private readonly logger = new JsonLogger('identity');

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(CreateTokenUseCase) private readonly createToken: CreateTokenUseCase,
    @Inject(SigningKeys) private readonly keys: SigningKeys,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(sandbox: Customer): Promise<SandboxBundle[]> {
    const published = new Set((await this.keys.jwks()).keys.map((k) => k.kid));
    const issued = await this.store.transaction(
      async (repos) => {
        const at = this.clock.now();
        const { user } = await repos.users.ensure(SANDBOX_TOKEN_OWNER, at);
        await repos.memberships.addIfAbsent({ customerId: sandbox.id, userId: user.id, role: 'editor', at });
        const stored = new Map((await repos.sandboxTokens.list()).map((t) => [t.bundle, t]));
        const renewed: Array<{ bundle: SandboxBundle; command: CreateTokenCommand; record: Parameters<CreateTokenUseCase['recordCreation']>[1] }> = [];
        for (const bundle of SANDBOX_BUNDLES) {
          if (this.stillGood(stored.get(bundle), published, at)) continue;
          const command = CreateTokenCommand.create({
            customer: { id: sandbox.id, domain: sandbox.domain, isSandbox: true },
            creator: { userId: user.id, scopes: personScopes('editor', ''), admin: '' },
            name: `sandbox ${bundle} (public)`,
            bundle,
            expiresInDays: SANDBOX_TOKEN_DAYS,
            actor: SYSTEM_ACTOR,
          });
          const { created, record } = await this.createToken.mint(repos, command);
          await repos.sandboxTokens.put({ bundle, tokenId: created.id, token: created.token, at });
          renewed.push({ bundle, command, record });
        }
        return renewed;
      },
      { lock: SANDBOX_LOCK },
    );
    for (const { command, record } of issued) await this.createToken.recordCreation(command, record);
    if (issued.length) this.logger.info('sandbox tokens issued', { domain: sandbox.domain, bundles: issued.map((i) => i.bundle) });
    return issued.map((i) => i.bundle);
  }

  private stillGood(token: StoredSandboxToken | undefined, published: ReadonlySet<string>, now: Date): boolean {
    if (!token || token.revokedAt) return false;
    if (token.expiresAt.getTime() - now.getTime() < SANDBOX_TOKEN_RENEW_DAYS * DAY_MS) return false;
    try {
      return decodeJwt(token.token).iss === this.config.publicUrl && published.has(String(decodeProtectedHeader(token.token).kid));
    } catch {
      return false;
    }
  }
}
