import { Inject, Injectable } from '@nestjs/common';
import type { AdminLevel, CustomerId, Role, Scope } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { personScopes, roleScopes } from '../domain/access.js';
import { buildAccessTokenClaims } from '../domain/claims.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../domain/limits.js';
import type { IdentityRepositories } from '../repositories/identity.store.js';
import { Administrators } from './administrators.service.js';
import { CsrfTokens } from './csrf-tokens.service.js';
import { SigningKeys } from './signing-keys.service.js';

/** What a person holds on one customer now: their role there, their administrator level, the scopes both give. */
export interface Standing {
  readonly role: Role | null;
  readonly admin: AdminLevel;
  readonly scopes: Scope[];
}

export interface IssuedAccess {
  readonly access: string;
  readonly csrf: string;
  readonly expiresAt: Date;
}

/**
 * The access cookie of a console session: a 15-minute EdDSA JWT (typ `session`) naming the
 * session, its customer, the scopes and administrator level at issue time and the hash of the
 * session's CSRF token. Issued at login, on every refresh and on a customer switch.
 */
@Injectable()
export class SessionAccess {
  constructor(
    @Inject(SigningKeys) private readonly keys: SigningKeys,
    @Inject(CsrfTokens) private readonly csrf: CsrfTokens,
    @Inject(Administrators) private readonly administrators: Administrators,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async standing(repos: IdentityRepositories, userId: string, customerId: CustomerId): Promise<Standing> {
    const [role, admin] = await Promise.all([repos.memberships.findRole({ customerId, userId }), this.administrators.levelOf(repos, userId)]);
    return { role, admin, scopes: personScopes(role, admin) };
  }

  async issue(input: {
    userId: string;
    sessionId: string;
    customer: { id: string; domain: string };
    role: Role | null;
    admin: AdminLevel;
    now: Date;
  }): Promise<IssuedAccess> {
    const csrf = await this.csrf.forSession(input.sessionId);
    const access = await this.keys.sign({
      ...buildAccessTokenClaims({
        issuer: this.config.publicUrl,
        userId: input.userId,
        sessionId: input.sessionId,
        customer: input.customer,
        scopes: roleScopes(input.role),
        admin: input.admin,
        csrfToken: csrf,
        issuedAt: input.now,
        ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
      }),
    });
    return { access, csrf, expiresAt: new Date(Math.floor(input.now.getTime() / 1000) * 1000 + ACCESS_TOKEN_TTL_SECONDS * 1000) };
  }
}
