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
import { DescribeIdentityUseCase } from '../use-cases/describe-identity/describe-identity.usecase.js';
import { LogoutUseCase } from '../use-cases/logout/logout.usecase.js';
import { MagicLinkUseCase } from '../use-cases/magic-link/magic-link.usecase.js';
import { RefreshSessionCommand } from '../use-cases/refresh-session/refresh-session.command.js';
import { RefreshSessionUseCase } from '../use-cases/refresh-session/refresh-session.usecase.js';
import { RequestLoginCommand } from '../use-cases/request-login/request-login.command.js';
import { RequestLoginUseCase } from '../use-cases/request-login/request-login.usecase.js';
import { SwitchCustomerUseCase } from '../use-cases/switch-customer/switch-customer.usecase.js';
import { VerifyLoginCommand } from '../use-cases/verify-login/verify-login.command.js';
import { VerifyLoginUseCase } from '../use-cases/verify-login/verify-login.usecase.js';

type Login = MessageRequest<typeof IdentityMessages.login>;
type Verify = MessageRequest<typeof IdentityMessages.verify>;
type Me = MessageRequest<typeof IdentityMessages.me>;
type Refresh = MessageRequest<typeof IdentityMessages.refresh>;
type Renew = MessageRequest<typeof IdentityMessages.renewSession>;
type Switch = MessageRequest<typeof IdentityMessages.switchCustomer>;
type Logout = MessageRequest<typeof IdentityMessages.logout>;
type Magic = MessageRequest<typeof IdentityMessages.magicLinkCheck>;

@Controller()
export class AuthController {
  constructor(
    @Inject(RequestLoginUseCase) private readonly requestLogin: RequestLoginUseCase,
    @Inject(VerifyLoginUseCase) private readonly verifyLogin: VerifyLoginUseCase,
    @Inject(DescribeIdentityUseCase) private readonly describeIdentity: DescribeIdentityUseCase,
    @Inject(RefreshSessionUseCase) private readonly refreshSession: RefreshSessionUseCase,
    @Inject(SwitchCustomerUseCase) private readonly switchCustomer: SwitchCustomerUseCase,
    @Inject(LogoutUseCase) private readonly logoutUseCase: LogoutUseCase,
    @Inject(MagicLinkUseCase) private readonly magicLink: MagicLinkUseCase,
  ) {}

  @MessagePattern(IdentityMessages.login.pattern)
  login(@Payload() call: Login): Promise<LoginResponse> {
    return this.requestLogin.execute(RequestLoginCommand.create({ email: call.body.email, ip: call.ctx.ip }));
  }

  @MessagePattern(IdentityMessages.verify.pattern)
  verify(@Payload() call: Verify): Promise<VerifiedLogin> {
    return this.verifyLogin.execute(VerifyLoginCommand.create({ email: call.body.email, code: call.body.code, ip: call.ctx.ip }));
  }

  @MessagePattern(IdentityMessages.me.pattern)
  me(@Payload() call: Me): Promise<IdentityObject> {
    return this.describeIdentity.execute(call.ctx);
  }

  /** POST /auth/refresh: the refresh cookie and the CSRF token come from the gateway (auth kind `refresh`). */
  @MessagePattern(IdentityMessages.refresh.pattern)
  refresh(@Payload() call: Refresh): Promise<RefreshedSession> {
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
  renew(@Payload() request: Renew): Promise<RefreshedSession> {
    return this.refreshSession.execute(
      RefreshSessionCommand.create({ refreshToken: request.refreshToken, requireCsrf: false, ip: request.ip, userAgent: request.userAgent }),
    );
  }

  @MessagePattern(IdentityMessages.switchCustomer.pattern)
  switch(@Payload() call: Switch): Promise<SwitchedSession> {
    return this.switchCustomer.execute(call.ctx, call.body.domain);
  }

  @MessagePattern(IdentityMessages.logout.pattern)
  logout(@Payload() call: Logout): Promise<void> {
    return this.logoutUseCase.execute(call.ctx);
  }

  @MessagePattern(IdentityMessages.magicLinkCheck.pattern)
  magicCheck(@Payload() call: Magic): Promise<{ valid: boolean; c: string; t: string }> {
    return this.magicLink.check(call);
  }

  @MessagePattern(IdentityMessages.magicLinkConfirm.pattern)
  magicConfirm(@Payload() call: Magic): Promise<MagicLinkResult> {
    return this.magicLink.confirm(call);
  }
}
