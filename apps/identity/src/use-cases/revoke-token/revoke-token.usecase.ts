import { Inject, Injectable } from '@nestjs/common';
import { IdentityErrors, IdentityEvents } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { canRevokeAnyToken } from '../../domain/access.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import type { RevokeTokenCommand } from './revoke-token.command.js';

/**
 * Revokes a token of the customer: the caller's own, or any for members:manage and full
 * administrators. A token the caller may not touch answers 404 like an unknown one (the
 * caller cannot list it either). Idempotent; gateways hear of it through credentialRevoked.
 */
@Injectable()
export class RevokeTokenUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: RevokeTokenCommand): Promise<void> {
    const tokens = this.store.repos.tokens;
    const token = await tokens.findInCustomer({ customerId: command.customer.id, id: command.tokenId });
    if (!token || (token.createdBy !== command.principal.userId && !canRevokeAnyToken(command.principal))) {
      throw IdentityErrors.token_not_found();
    }
    const now = this.clock.now();
    if (!(await tokens.revoke({ customerId: command.customer.id, id: token.id, at: now }))) return;
    this.bus.emit(IdentityEvents.credentialRevoked, { kind: 'token', id: token.id });
    await this.audit.record({
      actor: command.actor,
      domain: command.customer.domain,
      action: 'token.revoke',
      targetType: 'token',
      targetId: token.id,
      before: { revoked_at: null },
      after: { revoked_at: now.toISOString() },
    });
  }
}
