import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type CustomerView, type CustomerWithCounts, IdentityMessages, type MemberView, type MessageRequest } from '@app/contracts';
import { CreateCustomerCommand } from '../usecases/create-customer/create-customer.command.js';
import { CreateCustomerUseCase } from '../usecases/create-customer/create-customer.usecase.js';
import { GetCustomerUseCase } from '../usecases/get-customer/get-customer.usecase.js';
import { ListCustomersUseCase } from '../usecases/list-customers/list-customers.usecase.js';

type Create = MessageRequest<typeof IdentityMessages.createCustomer>;
type Get = MessageRequest<typeof IdentityMessages.getCustomer>;

/** The administrator API's customer part (the gateway checks the admin level and the sandbox rule). */
@Controller()
export class AdminCustomersController {
  constructor(
    @Inject(CreateCustomerUseCase) private readonly createCustomer: CreateCustomerUseCase,
    @Inject(ListCustomersUseCase) private readonly listCustomers: ListCustomersUseCase,
    @Inject(GetCustomerUseCase) private readonly getCustomer: GetCustomerUseCase,
  ) {}

  @MessagePattern(IdentityMessages.createCustomer.pattern)
  create(@Payload() call: Create): Promise<{ customer: CustomerView }> {
    return this.createCustomer.execute(CreateCustomerCommand.create({ domain: call.body.domain, name: call.body.name, ownerEmail: call.body.owner_email, corsOrigins: call.body.cors_origins, actor: call.ctx.auditActor }));
  }

  @MessagePattern(IdentityMessages.listCustomers.pattern)
  list(): Promise<{ items: CustomerWithCounts[] }> {
    return this.listCustomers.execute();
  }

  @MessagePattern(IdentityMessages.getCustomer.pattern)
  get(@Payload() call: Get): Promise<{ customer: CustomerView; members: MemberView[] }> {
    return this.getCustomer.execute(call.params.domain);
  }
}
