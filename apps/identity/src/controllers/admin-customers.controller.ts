import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type CustomerDeletion,
  type CustomerView,
  type CustomerWithCounts,
  IdentityMessages,
  type MemberView,
  type MessageRequest,
  type UpdatedUser,
} from '@app/contracts';
import { AdminUsersUseCase } from '../use-cases/admin-users/admin-users.usecase.js';
import { CreateCustomerCommand } from '../use-cases/create-customer/create-customer.command.js';
import { CreateCustomerUseCase } from '../use-cases/create-customer/create-customer.usecase.js';
import { DeleteCustomerUseCase } from '../use-cases/delete-customer/delete-customer.usecase.js';
import { GetCustomerUseCase } from '../use-cases/get-customer/get-customer.usecase.js';
import { ListCustomersUseCase } from '../use-cases/list-customers/list-customers.usecase.js';
import { UpdateCustomerUseCase } from '../use-cases/update-customer/update-customer.usecase.js';

type Create = MessageRequest<typeof IdentityMessages.createCustomer>;
type List = MessageRequest<typeof IdentityMessages.listCustomers>;
type Get = MessageRequest<typeof IdentityMessages.getCustomer>;
type Update = MessageRequest<typeof IdentityMessages.updateCustomer>;
type Delete = MessageRequest<typeof IdentityMessages.deleteCustomer>;
type UpdateUser = MessageRequest<typeof IdentityMessages.updateUser>;

/** The administrator API's customer and user part (the gateway checks the admin level and the sandbox rule). */
@Controller()
export class AdminCustomersController {
  constructor(
    @Inject(CreateCustomerUseCase) private readonly createCustomer: CreateCustomerUseCase,
    @Inject(ListCustomersUseCase) private readonly listCustomers: ListCustomersUseCase,
    @Inject(GetCustomerUseCase) private readonly getCustomer: GetCustomerUseCase,
    @Inject(UpdateCustomerUseCase) private readonly updateCustomer: UpdateCustomerUseCase,
    @Inject(AdminUsersUseCase) private readonly users: AdminUsersUseCase,
    @Inject(DeleteCustomerUseCase) private readonly deleteCustomer: DeleteCustomerUseCase,
  ) {}

  @MessagePattern(IdentityMessages.createCustomer.pattern)
  create(@Payload() call: Create): Promise<{ customer: CustomerView }> {
    return this.createCustomer.execute(
      CreateCustomerCommand.create({
        domain: call.body.domain,
        name: call.body.name,
        ownerEmail: call.body.owner_email,
        corsOrigins: call.body.cors_origins,
        actor: adminActor(call.ctx.auditActor),
      }),
    );
  }

  @MessagePattern(IdentityMessages.listCustomers.pattern)
  list(@Payload() call: List): Promise<{ items: CustomerWithCounts[] }> {
    return this.listCustomers.execute(call.ctx);
  }

  @MessagePattern(IdentityMessages.getCustomer.pattern)
  get(@Payload() call: Get): Promise<{ customer: CustomerView; members: MemberView[] }> {
    return this.getCustomer.execute(call.params.domain);
  }

  @MessagePattern(IdentityMessages.updateCustomer.pattern)
  update(@Payload() call: Update): Promise<{ customer: CustomerView }> {
    return this.updateCustomer.execute({ domain: call.params.domain, change: call.body ?? {}, actor: adminActor(call.ctx.auditActor) });
  }

  @MessagePattern(IdentityMessages.deleteCustomer.pattern)
  delete(@Payload() call: Delete): Promise<CustomerDeletion> {
    return this.deleteCustomer.execute({ domain: call.params.domain, confirm: call.query?.confirm, actor: adminActor(call.ctx.auditActor) });
  }

  @MessagePattern(IdentityMessages.listUsers.pattern)
  listUsers(): Promise<{ items: MemberView[] }> {
    return this.users.list();
  }

  @MessagePattern(IdentityMessages.updateUser.pattern)
  updateUser(@Payload() call: UpdateUser): Promise<UpdatedUser> {
    return this.users.setDisabled({ ...call.ctx, auditActor: adminActor(call.ctx.auditActor) }, call.params.email, call.body?.disabled);
  }
}

/** In an audit entry, the actor of an administrator action carries an `admin:` prefix. */
function adminActor(actor: string): string {
  return actor.startsWith('admin:') ? actor : `admin:${actor}`;
}
