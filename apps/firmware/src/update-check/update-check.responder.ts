import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { FirmwareMessages } from '@app/contracts';
import { MessageBus } from '@app/infra';
import { UpdateCheckService } from './update-check.service.js';

/**
 * Answers `firmware.update-check` (both roles; declared in firmware.module.ts FIRMWARE_HANDLERS
 * with the controllers). Served with MessageBus.serve rather than a
 * @MessagePattern controller: the update check is the hottest path there is and uses no
 * guard, pipe or interceptor, so it skips Nest's per-message pipeline (about a sixth of the
 * standalone's CPU time per check, measured with bench:update-check). Over NATS it answers in
 * the app's queue group `firmware`, like the controllers.
 */
@Injectable()
export class UpdateCheckResponder implements OnModuleInit, OnModuleDestroy {
  private stop?: () => void;

  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    @Inject(UpdateCheckService) private readonly service: UpdateCheckService,
  ) {}

  onModuleInit(): void {
    this.stop = this.bus.serve(FirmwareMessages.updateCheck, (call) => this.service.check(call));
  }

  onModuleDestroy(): void {
    this.stop?.();
  }
}
