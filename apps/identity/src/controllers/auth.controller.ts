import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type IdentityObject, IdentityMessages, type LoginResponse, type MessageRequest, type VerifiedLogin } from '@app/contracts';
import { DescribeIdentityUseCase } from '../usecases/describe-identity/describe-identity.usecase.js';
import { RequestLoginCommand } from '../usecases/request-login/request-login.command.js';
import { RequestLoginUseCase } from '../usecases/request-login/request-login.usecase.js';
import { VerifyLoginCommand } from '../usecases/verify-login/verify-login.command.js';
import { VerifyLoginUseCase } from '../usecases/verify-login/verify-login.usecase.js';

type Login = MessageRequest<typeof IdentityMessages.login>;
type Verify = MessageRequest<typeof IdentityMessages.verify>;
type Me = MessageRequest<typeof IdentityMessages.me>;

@Controller()
export class AuthController {
  constructor(
    @Inject(RequestLoginUseCase) private readonly requestLogin: RequestLoginUseCase,
    @Inject(VerifyLoginUseCase) private readonly verifyLogin: VerifyLoginUseCase,
    @Inject(DescribeIdentityUseCase) private readonly describeIdentity: DescribeIdentityUseCase,
  ) {}

  @MessagePattern(IdentityMessages.login.pattern)
  login(@Payload() call: Login): Promise<LoginResponse> {
    return this.requestLogin.execute(RequestLoginCommand.create({ email: call.body.email }));
  }

  @MessagePattern(IdentityMessages.verify.pattern)
  verify(@Payload() call: Verify): Promise<VerifiedLogin> {
    return this.verifyLogin.execute(VerifyLoginCommand.create({ email: call.body.email, code: call.body.code, ip: call.ctx.ip }));
  }

  @MessagePattern(IdentityMessages.me.pattern)
  me(@Payload() call: Me): Promise<IdentityObject> {
    return this.describeIdentity.execute(call.ctx);
  }
}
