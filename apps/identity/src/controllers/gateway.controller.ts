import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type CorsOriginsOfAll, type CredentialStatus, type CustomerInfo, IdentityMessages, type MessageRequest, type SandboxTokens } from '@app/contracts';
import { CredentialStatusUseCase } from '../use-cases/credential-status/credential-status.usecase.js';
import { ListCorsOriginsUseCase } from '../use-cases/list-cors-origins/list-cors-origins.usecase.js';
import { ListSandboxTokensUseCase } from '../use-cases/list-sandbox-tokens/list-sandbox-tokens.usecase.js';
import { ResolveCustomerUseCase } from '../use-cases/resolve-customer/resolve-customer.usecase.js';

type Req<K extends keyof typeof IdentityMessages> = MessageRequest<(typeof IdentityMessages)[K]>;

/** Questions the gateway asks while authenticating a request or rendering a page (no request context). */
@Controller()
export class GatewayController {
  constructor(
    @Inject(CredentialStatusUseCase) private readonly credentialStatus: CredentialStatusUseCase,
    @Inject(ResolveCustomerUseCase) private readonly resolveCustomer: ResolveCustomerUseCase,
    @Inject(ListCorsOriginsUseCase) private readonly listCorsOrigins: ListCorsOriginsUseCase,
    @Inject(ListSandboxTokensUseCase) private readonly listSandboxTokens: ListSandboxTokensUseCase,
  ) {}

  @MessagePattern(IdentityMessages.credentialStatus.pattern)
  status(@Payload() request: Req<'credentialStatus'>): Promise<CredentialStatus> {
    return this.credentialStatus.execute(request);
  }

  @MessagePattern(IdentityMessages.resolveCustomer.pattern)
  resolve(@Payload() lookup: Req<'resolveCustomer'>): Promise<CustomerInfo | null> {
    return this.resolveCustomer.execute(lookup);
  }

  @MessagePattern(IdentityMessages.corsOriginsOfAll.pattern)
  corsOrigins(): Promise<CorsOriginsOfAll> {
    return this.listCorsOrigins.execute();
  }

  /** GET /docs shows the sandbox's public tokens. */
  @MessagePattern(IdentityMessages.sandboxTokens.pattern)
  sandbox(): Promise<SandboxTokens | null> {
    return this.listSandboxTokens.execute();
  }
}
