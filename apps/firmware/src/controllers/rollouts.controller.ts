import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type BuildAudience, FirmwareMessages, type MessageRequest, type UpdatePreview } from '@app/contracts';
import { FindBuildAudienceCommand } from '../use-cases/find-build-audience/find-build-audience.command.js';
import { FindBuildAudienceUseCase } from '../use-cases/find-build-audience/find-build-audience.usecase.js';
import { PreviewUpdateCommand } from '../use-cases/preview-update/preview-update.command.js';
import { PreviewUpdateUseCase } from '../use-cases/preview-update/preview-update.usecase.js';

type Req<K extends keyof typeof FirmwareMessages> = MessageRequest<(typeof FirmwareMessages)[K]>;

/** The rollout views (libs/contracts rollout.endpoints.ts). Async: a command refused when built answers a rejected promise. */
@Controller()
export class RolloutsController {
  constructor(
    @Inject(FindBuildAudienceUseCase) private readonly findAudience: FindBuildAudienceUseCase,
    @Inject(PreviewUpdateUseCase) private readonly previewUpdate: PreviewUpdateUseCase,
  ) {}

  @MessagePattern(FirmwareMessages.audience.pattern)
  async audience(@Payload() call: Req<'audience'>): Promise<BuildAudience> {
    return this.findAudience.execute(FindBuildAudienceCommand.create({ ctx: call.ctx, id: call.params?.id, query: call.query }));
  }

  @MessagePattern(FirmwareMessages.previewUpdate.pattern)
  async preview(@Payload() call: Req<'previewUpdate'>): Promise<UpdatePreview> {
    return this.previewUpdate.execute(PreviewUpdateCommand.create({ ctx: call.ctx, hwid: call.params?.hwid, query: call.query }));
  }
}
