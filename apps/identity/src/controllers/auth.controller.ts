import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type IdentityObject,
  IdentityMessages,
  type LoginResponse,
  type MagicLinkResult,
  type MessageRequest,
  type RefreshedSession,
  type SwitchedSession,
  type VerifiedLogin,
} from '@app/contracts';
import { CheckMagicLinkUseCase } from '../use-cases/check-magic-link/check-magic-link.usecase.js';
import { MagicLinkCommand } from '../use-cases/check-magic-link/magic-link.command.js';
import { ConfirmMagicLinkUseCase } from '../use-cases/confirm-magic-link/confirm-magic-link.usecase.js';
import { DescribeIdentityUseCase } from '../use-cases/describe-identity/describe-identity.usecase.js';
import { LogoutUseCase } from '../use-cases/logout/logout.usecase.js';
import { RefreshSessionCommand } from '../use-cases/refresh-session/refresh-session.command.js';
import { RefreshSessionUseCase } from '../use-cases/refresh-session/refresh-session.usecase.js';
import { RequestLoginCommand } from '../use-cases/request-login/request-login.command.js';
import { RequestLoginUseCase } from '../use-cases/request-login/request-login.usecase.js';
import { SwitchCustomerCommand } from '../use-cases/switch-customer/switch-customer.command.js';
import { SwitchCustomerUseCase } from '../use-cases/switch-customer/switch-customer.usecase.js';
import { VerifyLoginCommand } from '../use-cases/verify-login/verify-login.command.js';
import { VerifyLoginUseCase } from '../use-cases/verify-login/verify-login.usecase.js';

type Req<K extends keyof typeof IdentityMessages> = MessageRequest<(typeof IdentityMessages)[K]>;

/** Logging in and sessions (docs/api.md "Logging in"); handlers are async so a refused command answers a rejected promise. */
@Controller()
export class AuthController {
  constructor(
    @Inject(RequestLoginUseCase) private readonly requestLogin: RequestLoginUseCase,
    @Inject(VerifyLoginUseCase) private readonly verifyLogin: VerifyLoginUseCase,
    @Inject(DescribeIdentityUseCase) private readonly describeIdentity: DescribeIdentityUseCase,
    @Inject(RefreshSessionUseCase) private readonly refreshSession: RefreshSessionUseCase,
    @Inject(SwitchCustomerUseCase) private readonly switchCustomer: SwitchCustomerUseCase,
    @Inject(LogoutUseCase) private readonly logoutUseCase: LogoutUseCase,
    @Inject(CheckMagicLinkUseCase) private readonly checkMagicLink: CheckMagicLinkUseCase,
    @Inject(ConfirmMagicLinkUseCase) private readonly confirmMagicLink: ConfirmMagicLinkUseCase,
  ) {}

  @MessagePattern(IdentityMessages.login.pattern)
  async login(@Payload() call: Req<'login'>): Promise<LoginResponse> {
    return this.requestLogin.execute(RequestLoginCommand.create({ body: call.body, ip: call.ctx.ip }));
  }

  @MessagePattern(IdentityMessages.verify.pattern)
  async verify(@Payload() call: Req<'verify'>): Promise<VerifiedLogin> {
    return this.verifyLogin.execute(VerifyLoginCommand.create({ body: call.body, ip: call.ctx.ip }));
  }

  @MessagePattern(IdentityMessages.me.pattern)
  async me(@Payload() call: Req<'me'>): Promise<IdentityObject> {
    return this.describeIdentity.execute(call.ctx);
  }

  /** POST /auth/refresh: the refresh cookie and the CSRF token come from the gateway (auth kind `refresh`). */
  @MessagePattern(IdentityMessages.refresh.pattern)
  async refresh(@Payload() call: Req<'refresh'>): Promise<RefreshedSession> {
    return this.refreshSession.execute(
      RefreshSessionCommand.create({
        refreshToken: call.refresh?.token,
        csrfToken: call.refresh?.csrfToken,
        requireCsrf: true,
        ip: call.ctx.ip,
        userAgent: call.ctx.userAgent,
      }),
    );
  }

  /** The gateway renews an expired or missing access cookie of a request that carries a refresh cookie. */
  @MessagePattern(IdentityMessages.renewSession.pattern)
  async renew(@Payload() request: Req<'renewSession'>): Promise<RefreshedSession> {
    return this.refreshSession.execute(
      RefreshSessionCommand.create({ refreshToken: request.refreshToken, requireCsrf: false, ip: request.ip, userAgent: request.userAgent }),
    );
  }

  @MessagePattern(IdentityMessages.switchCustomer.pattern)
  async switch(@Payload() call: Req<'switchCustomer'>): Promise<SwitchedSession> {
    return this.switchCustomer.execute(SwitchCustomerCommand.create({ ctx: call.ctx, body: call.body }));
  }

  @MessagePattern(IdentityMessages.logout.pattern)
  async logout(@Payload() call: Req<'logout'>): Promise<void> {
    return this.logoutUseCase.execute(call.ctx);
  }

  @MessagePattern(IdentityMessages.magicLinkCheck.pattern)
  async magicCheck(@Payload() call: Req<'magicLinkCheck'>): Promise<{ valid: boolean; c: string; t: string }> {
    return this.checkMagicLink.execute(MagicLinkCommand.create({ ctx: call.ctx, query: call.query, headers: call.headers }));
  }

  @MessagePattern(IdentityMessages.magicLinkConfirm.pattern)
  async magicConfirm(@Payload() call: Req<'magicLinkConfirm'>): Promise<MagicLinkResult> {
    return this.confirmMagicLink.execute(MagicLinkCommand.create({ ctx: call.ctx, query: call.query, headers: call.headers }));
  }
}
