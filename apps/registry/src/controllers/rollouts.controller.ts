import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type DeviceHistory, type MessageRequest, RegistryRolloutMessages, type RolloutProgress, type RolloutThresholds } from '@app/contracts';
import { CutRolloutStages } from '../use-cases/cut-rollout-stages/cut-rollout-stages.usecase.js';
import { GetDeviceHistoryCommand } from '../use-cases/get-device-history/get-device-history.command.js';
import { GetDeviceHistory } from '../use-cases/get-device-history/get-device-history.usecase.js';
import { MeasureRollout } from '../use-cases/measure-rollout/measure-rollout.usecase.js';

type Req<K extends keyof typeof RegistryRolloutMessages> = MessageRequest<(typeof RegistryRolloutMessages)[K]>;

/** What the firmware app's rollouts ask the registry, and a device's version history (libs/contracts rollout.messages.ts). */
@Controller()
export class RegistryRolloutsController {
  constructor(
    @Inject(CutRolloutStages) private readonly cutStages: CutRolloutStages,
    @Inject(MeasureRollout) private readonly measure: MeasureRollout,
    @Inject(GetDeviceHistory) private readonly getHistory: GetDeviceHistory,
  ) {}

  @MessagePattern(RegistryRolloutMessages.thresholds.pattern)
  async thresholds(@Payload() request: Req<'thresholds'>): Promise<RolloutThresholds> {
    return this.cutStages.execute(request);
  }

  @MessagePattern(RegistryRolloutMessages.progress.pattern)
  async progress(@Payload() request: Req<'progress'>): Promise<RolloutProgress> {
    return this.measure.progress(request);
  }

  @MessagePattern(RegistryRolloutMessages.devices.pattern)
  async devices(@Payload() request: Req<'devices'>) {
    return this.measure.devices(request);
  }

  @MessagePattern(RegistryRolloutMessages.history.pattern)
  async history(@Payload() call: Req<'history'>): Promise<DeviceHistory> {
    return this.getHistory.execute(GetDeviceHistoryCommand.create({ ctx: call.ctx, hwid: call.params?.hwid, query: call.query }));
  }
}
