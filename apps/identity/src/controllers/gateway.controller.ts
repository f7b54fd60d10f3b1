import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type CorsOriginsOfAll, type CredentialStatus, type CustomerInfo, IdentityMessages, type MessageRequest, type SandboxTokens } from '@app/contracts';
import { CredentialStatusUseCase } from '../use-cases/credential-status/credential-status.usecase.js';
import { ResolveCustomerUseCase } from '../use-cases/resolve-customer/resolve-customer.usecase.js';
import { SandboxTokensUseCase } from '../use-cases/sandbox-tokens/sandbox-tokens.usecase.js';

type Status = MessageRequest<typeof IdentityMessages.credentialStatus>;
type Resolve = MessageRequest<typeof IdentityMessages.resolveCustomer>;

/** Questions the gateway asks while authenticating a request or rendering a page (no request context). */
@Controller()
export class GatewayController {
  constructor(
    @Inject(CredentialStatusUseCase) private readonly credentialStatus: CredentialStatusUseCase,
    @Inject(ResolveCustomerUseCase) private readonly resolveCustomer: ResolveCustomerUseCase,
    @Inject(SandboxTokensUseCase) private readonly sandboxTokens: SandboxTokensUseCase,
  ) {}

  @MessagePattern(IdentityMessages.credentialStatus.pattern)
  status(@Payload() request: Status): Promise<CredentialStatus> {
    return this.credentialStatus.execute(request);
  }

  @MessagePattern(IdentityMessages.resolveCustomer.pattern)
  resolve(@Payload() lookup: Resolve): Promise<CustomerInfo | null> {
    return this.resolveCustomer.execute(lookup);
  }

  @MessagePattern(IdentityMessages.corsOriginsOfAll.pattern)
  corsOrigins(): Promise<CorsOriginsOfAll> {
    return this.resolveCustomer.corsOriginsOfAll();
  }

  /** GET /docs shows the sandbox's public tokens. */
  @MessagePattern(IdentityMessages.sandboxTokens.pattern)
  sandbox(): Promise<SandboxTokens | null> {
    return this.sandboxTokens.list();
  }
}
