import { Inject, Injectable } from '@nestjs/common';
import { CommonErrors, IdentityErrors, type SwitchedSession } from '@app/contracts';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../domain/limits.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { Clock } from '../../services/clock.js';
import { CredentialEvents } from '../../services/credential-events.service.js';
import { SessionAccess } from '../../services/session-access.service.js';
import type { SwitchCustomerCommand } from './switch-customer.command.js';
import { identityObject } from '../../domain/views.js';
import { requirePrincipal } from '../../domain/access.js';

/**
 * POST /auth/switch: the session moves to another customer its person belongs to (404 for an
 * unknown domain, 403 for one they do not belong to or that is suspended). A new access
 * cookie is issued for it; the refresh and CSRF tokens stay. Gateways are told (credential
 * changed), and an access cookie issued for the previous customer stops working: a session's
 * access cookie only works on the customer the session is on.
 */
@Injectable()
export class SwitchCustomerUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(SessionAccess) private readonly access: SessionAccess,
    @Inject(CredentialEvents) private readonly credentials: CredentialEvents,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: SwitchCustomerCommand): Promise<SwitchedSession> {
    const principal = requirePrincipal(command.ctx);
    if (principal.kind !== 'session') throw IdentityErrors.switch_session_only();
    const { domain } = command;
    if (domain === null) throw CommonErrors.customer_not_found();
    const now = this.clock.now();
    const repos = this.store.repos;
    const customer = await repos.customers.findByDomain(domain);
    if (!customer) throw CommonErrors.customer_not_found();
    const standing = await this.access.standing(repos, principal.userId, customer.id);
    if (!standing.role) throw IdentityErrors.switch_not_a_member();
    if (customer.status !== 'active') throw IdentityErrors.switch_customer_suspended();
    const session = await repos.sessions.findCredentialState(principal.credentialId);
    if (!session || session.revokedAt) throw CommonErrors.session_ended();
    if (session.customerId !== customer.id) {
      await repos.sessions.setCustomer({ sessionId: principal.credentialId, customerId: customer.id });
      this.credentials.changed('session', [principal.credentialId]);
    }
    const [user, memberships] = await Promise.all([repos.users.findById(principal.userId), repos.memberships.listForUser(principal.userId)]);
    const issued = await this.access.issue({
      userId: principal.userId,
      sessionId: principal.credentialId,
      customer,
      role: standing.role,
      admin: standing.admin,
      now,
    });
    return {
      identity: identityObject({
        email: user?.email ?? '',
        customerDomain: customer.domain,
        role: standing.role,
        scopes: standing.scopes,
        admin: standing.admin,
        csrfToken: issued.csrf,
        memberships,
      }),
      access: issued.access,
      accessMaxAgeSeconds: ACCESS_TOKEN_TTL_SECONDS,
    };
  }
}
