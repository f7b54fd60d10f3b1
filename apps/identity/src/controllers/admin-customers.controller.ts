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
import { adminActor } from '../domain/access.js';
import { CreateCustomerCommand } from '../use-cases/create-customer/create-customer.command.js';
import { CreateCustomerUseCase } from '../use-cases/create-customer/create-customer.usecase.js';
import { DeleteCustomerCommand } from '../use-cases/delete-customer/delete-customer.command.js';
import { DeleteCustomerUseCase } from '../use-cases/delete-customer/delete-customer.usecase.js';
import { GetCustomerCommand } from '../use-cases/get-customer/get-customer.command.js';
import { GetCustomerUseCase } from '../use-cases/get-customer/get-customer.usecase.js';
import { ListCustomersUseCase } from '../use-cases/list-customers/list-customers.usecase.js';
import { ListUsersUseCase } from '../use-cases/list-users/list-users.usecase.js';
import { UpdateCustomerCommand } from '../use-cases/update-customer/update-customer.command.js';
import { UpdateCustomerUseCase } from '../use-cases/update-customer/update-customer.usecase.js';
import { UpdateUserCommand } from '../use-cases/update-user/update-user.command.js';
import { UpdateUserUseCase } from '../use-cases/update-user/update-user.usecase.js';

type Req<K extends keyof typeof IdentityMessages> = MessageRequest<(typeof IdentityMessages)[K]>;

/**
 * The administrator API's customer and user part (the gateway checks the admin level and the
 * sandbox rule). Handlers are async so that a command refused when built answers a rejected
 * promise, like every other failure.
 */
@Controller()
export class AdminCustomersController {
  constructor(
    @Inject(CreateCustomerUseCase) private readonly createCustomer: CreateCustomerUseCase,
    @Inject(ListCustomersUseCase) private readonly listCustomers: ListCustomersUseCase,
    @Inject(GetCustomerUseCase) private readonly getCustomer: GetCustomerUseCase,
    @Inject(UpdateCustomerUseCase) private readonly updateCustomer: UpdateCustomerUseCase,
    @Inject(DeleteCustomerUseCase) private readonly deleteCustomer: DeleteCustomerUseCase,
    @Inject(ListUsersUseCase) private readonly listUsersUseCase: ListUsersUseCase,
    @Inject(UpdateUserUseCase) private readonly updateUserUseCase: UpdateUserUseCase,
  ) {}

  @MessagePattern(IdentityMessages.createCustomer.pattern)
  async create(@Payload() call: Req<'createCustomer'>): Promise<{ customer: CustomerView }> {
    return this.createCustomer.execute(CreateCustomerCommand.create({ ctx: call.ctx, body: call.body }));
  }

  @MessagePattern(IdentityMessages.listCustomers.pattern)
  async list(@Payload() call: Req<'listCustomers'>): Promise<{ items: CustomerWithCounts[] }> {
    return this.listCustomers.execute(call.ctx);
  }

  @MessagePattern(IdentityMessages.getCustomer.pattern)
  async get(@Payload() call: Req<'getCustomer'>): Promise<{ customer: CustomerView; members: MemberView[] }> {
    return this.getCustomer.execute(GetCustomerCommand.create({ params: call.params }));
  }

  @MessagePattern(IdentityMessages.updateCustomer.pattern)
  async update(@Payload() call: Req<'updateCustomer'>): Promise<{ customer: CustomerView }> {
    return this.updateCustomer.execute(UpdateCustomerCommand.create({ ctx: call.ctx, params: call.params, body: call.body }));
  }

  @MessagePattern(IdentityMessages.deleteCustomer.pattern)
  async delete(@Payload() call: Req<'deleteCustomer'>): Promise<CustomerDeletion> {
    return this.deleteCustomer.execute(DeleteCustomerCommand.create({ ctx: call.ctx, params: call.params, query: call.query }));
  }

  @MessagePattern(IdentityMessages.listUsers.pattern)
  async listUsers(): Promise<{ items: MemberView[] }> {
    return this.listUsersUseCase.execute();
  }

  @MessagePattern(IdentityMessages.updateUser.pattern)
  async updateUser(@Payload() call: Req<'updateUser'>): Promise<UpdatedUser> {
    return this.updateUserUseCase.execute(
      UpdateUserCommand.create({ ctx: call.ctx, email: call.params.email, body: call.body, actor: adminActor(call.ctx.auditActor) }),
    );
  }
}
