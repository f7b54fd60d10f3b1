import { Inject, Injectable } from '@nestjs/common';
import { asCustomerId, type CustomerView, IdentityErrors, IdentityEvents } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { randomUUID } from 'node:crypto';
import { toCustomerView } from '../../domain/views.js';
import { IdentityStore } from '../../repositories/identity.store.js';
import { AuditTrail } from '../../services/audit-trail.service.js';
import { Clock } from '../../services/clock.js';
import { InviteMemberCommand } from '../invite-member/invite-member.command.js';
import { InviteMemberUseCase } from '../invite-member/invite-member.usecase.js';
import type { CreateCustomerCommand } from './create-customer.command.js';

/** Opens a customer account and, with owner_email, invites its first owner (one transaction; mail after commit). */
@Injectable()
export class CreateCustomerUseCase {
  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(InviteMemberUseCase) private readonly invite: InviteMemberUseCase,
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(command: CreateCustomerCommand): Promise<{ customer: CustomerView }> {
    const { customer, invitation } = await this.store.transaction(async (repos) => {
      const id = asCustomerId(randomUUID());
      const created = await repos.customers.insertIfAbsent({
        id,
        domain: command.domain,
        name: command.name,
        corsOrigins: command.corsOrigins,
        isSandbox: false,
        at: this.clock.now(),
      });
      if (!created) throw IdentityErrors.customer_exists();
      const customer = (await repos.customers.findById(id))!;
      if (!command.ownerEmail) return { customer, invitation: null };
      const invite = InviteMemberCommand.create({ customer, email: command.ownerEmail, role: 'owner', actor: command.actor });
      const { invitation } = await this.invite.addWithin(repos, invite);
      return { customer, invitation: invitation ? { command: invite, mail: invitation } : null };
    });

    const view = toCustomerView(customer);
    this.bus.emit(IdentityEvents.customerChanged, { id: customer.id, domain: customer.domain });
    await this.audit.record({
      actor: command.actor,
      domain: customer.domain,
      action: 'customer.create',
      targetType: 'customer',
      targetId: customer.domain,
      before: null,
      after: { ...view, owner_email: command.ownerEmail },
    });
    if (invitation) await this.invite.deliver(invitation.command, invitation.mail);
    return { customer: view };
  }
}
