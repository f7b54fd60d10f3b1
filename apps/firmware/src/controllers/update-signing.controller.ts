import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { FirmwareMessages, type MessageRequest } from '@app/contracts';
import { UpdateSigningKeys } from '../update-check/update-signing-keys.js';
import { RotateUpdateSigningKeyUseCase } from '../use-cases/rotate-update-signing-key/rotate-update-signing-key.usecase.js';

/** The keys that sign update-check answers: their public half for the JWKS, and rotation. */
@Controller()
export class UpdateSigningController {
  constructor(
    @Inject(UpdateSigningKeys) private readonly keys: UpdateSigningKeys,
    @Inject(RotateUpdateSigningKeyUseCase) private readonly rotateKey: RotateUpdateSigningKeyUseCase,
  ) {}

  @MessagePattern(FirmwareMessages.updateSigningJwks.pattern)
  jwks() {
    return this.keys.jwks();
  }

  @MessagePattern(FirmwareMessages.rotateUpdateSigningKey.pattern)
  rotate(@Payload() call: MessageRequest<typeof FirmwareMessages.rotateUpdateSigningKey>) {
    return this.rotateKey.executeForRequest(call);
  }
}
