import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type MessageRequest, ObjectOwnerMessages } from '@app/contracts';
import { FindOwnedObjectsUseCase } from '../use-cases/find-owned-objects/find-owned-objects.usecase.js';

/** Answers the staging clean-up: which object keys this app's stored files hold. */
@Controller()
export class ObjectOwnershipController {
  constructor(@Inject(FindOwnedObjectsUseCase) private readonly findOwned: FindOwnedObjectsUseCase) {}

  @MessagePattern(ObjectOwnerMessages.firmware.pattern)
  owned(@Payload() request: MessageRequest<typeof ObjectOwnerMessages.firmware>) {
    return this.findOwned.execute(request);
  }
}
