import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { FirmwareMessages, type MessageRequest } from '@app/contracts';
import { UpdateCheckService } from '../update-check/update-check.service.js';

/** The public update check: the only handler of the `update-check` role (its own deployment). */
@Controller()
export class UpdateCheckController {
  constructor(@Inject(UpdateCheckService) private readonly service: UpdateCheckService) {}

  @MessagePattern(FirmwareMessages.updateCheck.pattern)
  check(@Payload() call: MessageRequest<typeof FirmwareMessages.updateCheck>) {
    return this.service.check(call);
  }
}
