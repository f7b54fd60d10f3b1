import { Inject, Injectable } from '@nestjs/common';
import { BUNDLE_SCOPES, type CreatedToken, type CreateTokenRequest, type EndpointCall, requireTenant } from '@app/contracts';
import type { ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { randomUUID } from 'node:crypto';
import { assertBundleWithinCeiling } from '../../domain/access.js';
import { buildApiTokenClaims } from '../../domain/claims.js';
import { DAY_MS } from '../../domain/limits.js';
import { toCreatedToken } from '../../domain/views.js';
import type { NewApiToken } from '../../repositories/api-token.repository.js';
import { IdentityStore, type IdentityRepositories } from '../../repositories/identity.store.js';
import { Administrators } from '../../services/administrators.service.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { SigningKeys } from '../../services/signing-keys.service.js';
import { requirePrincipal } from '../../domain/access.js';
import { CreateTokenCommand } from './create-token.command.js';
import { TokenCreators } from './token-creator.js';

/**
 * Mints an API token: checks the bundle against the creator's ceiling, signs the JWT (the claims of
 * domain/claims.ts) and stores only its id and metadata. The token itself is returned once.
 */
@Injectable()
export class CreateTokenUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(SigningKeys) private readonly keys: SigningKeys,
    @Inject(TokenCreators) private readonly creators: TokenCreators,
    @Inject(Administrators) private readonly administrators: Administrators,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  /** POST /tokens: the creator is the person behind the credential (a token's own user for token callers). */
  async executeForRequest(call: EndpointCall<unknown, unknown, CreateTokenRequest>): Promise<CreatedToken> {
    const principal = requirePrincipal(call.ctx);
    const { customer } = requireTenant(call.ctx);
    const creator = await this.creators.forPrincipal(principal, customer);
    return this.execute(
      CreateTokenCommand.create({
        customer,
        creator,
        name: call.body.name,
        bundle: call.body.bundle,
        expiresInDays: call.body.expires_in_days,
        actor: call.ctx.auditActor,
      }),
    );
  }

  async execute(command: CreateTokenCommand): Promise<CreatedToken> {
    const { created, record } = await this.mint(this.store.repos, command);
    await this.recordCreation(command, record);
    return created;
  }

  /** Checks the ceiling, signs and stores the record with `repos` (a transaction's, for start-up work). */
  async mint(repos: IdentityRepositories, command: CreateTokenCommand): Promise<{ created: CreatedToken; record: NewApiToken }> {
    assertBundleWithinCeiling(command.bundle, command.creator, this.administrators.isOperator(command.customer));
    const now = this.clock.now();
    const record: NewApiToken = {
      id: randomUUID(),
      customerId: command.customer.id,
      createdBy: command.creator.userId,
      name: command.name,
      bundle: command.bundle,
      scopes: [...BUNDLE_SCOPES[command.bundle]],
      createdAt: now,
      expiresAt: new Date(now.getTime() + command.expiresInDays * DAY_MS),
    };
    const jwt = await this.keys.sign({
      ...buildApiTokenClaims({
        issuer: this.config.publicUrl,
        userId: record.createdBy,
        tokenId: record.id,
        customer: command.customer,
        scopes: record.scopes,
        issuedAt: record.createdAt,
        expiresAt: record.expiresAt,
      }),
    });
    await repos.tokens.insert(record);
    return { created: toCreatedToken(record, jwt), record };
  }

  async recordCreation(command: CreateTokenCommand, record: NewApiToken): Promise<void> {
    await this.audit.record({
      actor: command.actor,
      domain: command.customer.domain,
      action: 'token.create',
      targetType: 'token',
      targetId: record.id,
      before: null,
      after: { name: record.name, bundle: record.bundle, scopes: [...record.scopes], created_by: record.createdBy, expires_at: record.expiresAt.toISOString() },
    });
  }
}
