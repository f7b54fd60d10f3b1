import { Inject, Injectable } from '@nestjs/common';
import { asCustomerId, IdentityEvents } from '@app/contracts';
import { JsonLogger, MessageBus, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { randomUUID } from 'node:crypto';
import type { Customer } from '../../domain/records.js';
import type { IdentityRepositories } from '../../repositories/identity.store.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import type { InvitationMail } from '../../services/identity-mail.service.js';
import { InviteMemberCommand } from '../invite-member/invite-member.command.js';
import { InviteMemberUseCase } from '../invite-member/invite-member.usecase.js';
import { EnsureSandboxTokensUseCase } from '../ensure-sandbox-tokens/ensure-sandbox-tokens.usecase.js';

const PROVISIONING_LOCK = 'identity.provisioning';
const SYSTEM_ACTOR = 'system';

export interface ProvisioningResult {
  readonly operator: Customer;
  readonly sandbox: Customer | null;
  readonly createdDomains: readonly string[];
  readonly invitedOwner: string | null;
  /** Bundles whose public sandbox token was (re)issued by this run. */
  readonly sandboxTokensIssued: readonly string[];
}

/**
 * Start-up provisioning from the operator settings (docs/configuration.md): the operator customer,
 * its first owner (OPERATOR_ADMIN_EMAIL, only while it has no owner) and the sandbox customer
 * (SANDBOX_DOMAIN) with its public tokens. Idempotent; replicas starting together take turns on
 * advisory locks.
 */
@Injectable()
export class ProvisionOperatorUseCase {
  private readonly logger = new JsonLogger('identity');

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(InviteMemberUseCase) private readonly invite: InviteMemberUseCase,
    @Inject(EnsureSandboxTokensUseCase) private readonly ensureSandboxTokens: EnsureSandboxTokensUseCase,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  async execute(): Promise<ProvisioningResult> {
    const { operator, sandbox, created, invitation } = await this.store.transaction(
      async (repos) => {
        const created: Customer[] = [];
        const operator = await this.ensureCustomer(repos, this.config.operatorDomain, 'Service operator', false, created);
        let sandbox: Customer | null = null;
        if (this.config.sandboxDomain && this.config.sandboxDomain !== this.config.operatorDomain) {
          sandbox = await this.ensureCustomer(repos, this.config.sandboxDomain, 'Sandbox', true, created);
          if (!sandbox.isSandbox)
            this.logger.warn('SANDBOX_DOMAIN names an existing customer that is not a sandbox; left unchanged', { domain: sandbox.domain });
        }
        let invitation: { command: InviteMemberCommand; mail: InvitationMail } | null = null;
        if (this.config.operatorAdminEmail && !(await repos.memberships.hasOwner(operator.id))) {
          const command = this.ownerInvitation(operator);
          const { result, invitation: mail } = await this.invite.addWithin(repos, command);
          if (mail) invitation = { command, mail };
          else
            this.logger.warn('OPERATOR_ADMIN_EMAIL is already a member of the operator customer without being owner; role left unchanged', {
              user_id: result.userId,
            });
        }
        return { operator, sandbox, created, invitation };
      },
      { lock: PROVISIONING_LOCK },
    );

    for (const customer of created) {
      this.bus.emit(IdentityEvents.customerChanged, { id: customer.id, domain: customer.domain });
      await this.audit.record({
        actor: SYSTEM_ACTOR,
        domain: customer.domain,
        action: 'customer.create',
        targetType: 'customer',
        targetId: customer.domain,
        before: null,
        after: { domain: customer.domain, name: customer.name, is_sandbox: customer.isSandbox },
      });
    }
    if (invitation) await this.invite.deliver(invitation.command, invitation.mail);
    // The sandbox's public tokens (read-only, uploader, full), shown on /docs.
    const sandboxTokens = sandbox?.isSandbox ? await this.ensureSandboxTokens.execute(sandbox) : [];
    return { operator, sandbox, createdDomains: created.map((c) => c.domain), invitedOwner: invitation?.mail.to ?? null, sandboxTokensIssued: sandboxTokens };
  }

  private ownerInvitation(operator: Customer): InviteMemberCommand {
    try {
      return InviteMemberCommand.create({ customer: operator, email: this.config.operatorAdminEmail, role: 'owner', actor: SYSTEM_ACTOR });
    } catch {
      throw new Error(`OPERATOR_ADMIN_EMAIL must be a valid email address, got "${this.config.operatorAdminEmail}"`);
    }
  }

  private async ensureCustomer(repos: IdentityRepositories, domain: string, name: string, isSandbox: boolean, created: Customer[]): Promise<Customer> {
    const inserted = await repos.customers.insertIfAbsent({ id: asCustomerId(randomUUID()), domain, name, corsOrigins: [], isSandbox, at: this.clock.now() });
    const customer = await repos.customers.findByDomain(domain);
    if (!customer) throw new Error(`customer ${domain} vanished after insert`);
    if (inserted) created.push(customer);
    return customer;
  }
}
