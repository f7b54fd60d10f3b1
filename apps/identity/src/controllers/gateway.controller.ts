import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type CredentialStatus, type CustomerInfo, IdentityMessages, type MessageRequest } from '@app/contracts';
import { CredentialStatusUseCase } from '../usecases/credential-status/credential-status.usecase.js';
import { ResolveCustomerUseCase } from '../usecases/resolve-customer/resolve-customer.usecase.js';

type Status = MessageRequest<typeof IdentityMessages.credentialStatus>;
type Resolve = MessageRequest<typeof IdentityMessages.resolveCustomer>;

/** Questions the gateway asks while authenticating a request (no request context). */
@Controller()
export class GatewayController {
  constructor(
    @Inject(CredentialStatusUseCase) private readonly credentialStatus: CredentialStatusUseCase,
    @Inject(ResolveCustomerUseCase) private readonly resolveCustomer: ResolveCustomerUseCase,
  ) {}

  @MessagePattern(IdentityMessages.credentialStatus.pattern)
  status(@Payload() request: Status): Promise<CredentialStatus> {
    return this.credentialStatus.execute(request);
  }

  @MessagePattern(IdentityMessages.resolveCustomer.pattern)
  resolve(@Payload() lookup: Resolve): Promise<CustomerInfo | null> {
    return this.resolveCustomer.execute(lookup);
  }
}
