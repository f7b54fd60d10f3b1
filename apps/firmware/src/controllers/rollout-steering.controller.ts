import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type MessageRequest,
  type Rollout,
  type RolloutDevicePage,
  type RolloutEvaluation,
  type RolloutList,
  RolloutMessages,
  type RolloutPreview,
} from '@app/contracts';
import { ListRolloutDevicesUseCase } from '../use-cases/list-rollout-devices/list-rollout-devices.usecase.js';
import { ListRolloutsUseCase } from '../use-cases/list-rollouts/list-rollouts.usecase.js';
import { EvaluateRolloutsUseCase } from '../use-cases/evaluate-rollouts/evaluate-rollouts.usecase.js';
import { PreviewRolloutUseCase } from '../use-cases/preview-rollout/preview-rollout.usecase.js';
import { RolloutOfBuildCommand } from '../use-cases/read-rollout/rollout-of-build.command.js';
import { ReadRolloutUseCase } from '../use-cases/read-rollout/read-rollout.usecase.js';
import { StartRolloutCommand } from '../use-cases/start-rollout/start-rollout.command.js';
import { StartRolloutUseCase } from '../use-cases/start-rollout/start-rollout.usecase.js';
import { SteerRolloutUseCase } from '../use-cases/steer-rollout/steer-rollout.usecase.js';

type Req<K extends keyof typeof RolloutMessages> = MessageRequest<(typeof RolloutMessages)[K]>;

/** The staged rollout endpoints (libs/contracts rollout.endpoints.ts, RolloutMessages). */
@Controller()
export class RolloutSteeringController {
  constructor(
    @Inject(StartRolloutUseCase) private readonly start: StartRolloutUseCase,
    @Inject(ReadRolloutUseCase) private readonly read: ReadRolloutUseCase,
    @Inject(SteerRolloutUseCase) private readonly steer: SteerRolloutUseCase,
    @Inject(ListRolloutsUseCase) private readonly listRollouts: ListRolloutsUseCase,
    @Inject(ListRolloutDevicesUseCase) private readonly listDevices: ListRolloutDevicesUseCase,
    @Inject(PreviewRolloutUseCase) private readonly previewRollout: PreviewRolloutUseCase,
    @Inject(EvaluateRolloutsUseCase) private readonly evaluateRollouts: EvaluateRolloutsUseCase,
  ) {}

  @MessagePattern(RolloutMessages.create.pattern)
  async create(@Payload() call: Req<'create'>): Promise<Rollout> {
    return this.start.execute(StartRolloutCommand.create({ ctx: call.ctx, id: call.params?.id, body: call.body }));
  }

  @MessagePattern(RolloutMessages.get.pattern)
  async get(@Payload() call: Req<'get'>): Promise<Rollout> {
    return this.read.execute(RolloutOfBuildCommand.create({ ctx: call.ctx, id: call.params?.id }));
  }

  @MessagePattern(RolloutMessages.pause.pattern)
  async pause(@Payload() call: Req<'pause'>): Promise<Rollout> {
    return this.steer.execute('pause', RolloutOfBuildCommand.create({ ctx: call.ctx, id: call.params?.id }));
  }

  @MessagePattern(RolloutMessages.resume.pattern)
  async resume(@Payload() call: Req<'resume'>): Promise<Rollout> {
    return this.steer.execute('resume', RolloutOfBuildCommand.create({ ctx: call.ctx, id: call.params?.id }));
  }

  @MessagePattern(RolloutMessages.advance.pattern)
  async advance(@Payload() call: Req<'advance'>): Promise<Rollout> {
    return this.steer.execute('advance', RolloutOfBuildCommand.create({ ctx: call.ctx, id: call.params?.id }));
  }

  @MessagePattern(RolloutMessages.abort.pattern)
  async abort(@Payload() call: Req<'abort'>): Promise<Rollout> {
    return this.steer.execute('abort', RolloutOfBuildCommand.create({ ctx: call.ctx, id: call.params?.id }));
  }

  @MessagePattern(RolloutMessages.devices.pattern)
  async devices(@Payload() call: Req<'devices'>): Promise<RolloutDevicePage> {
    return this.listDevices.execute({ ctx: call.ctx, id: call.params?.id, query: call.query });
  }

  @MessagePattern(RolloutMessages.preview.pattern)
  async preview(@Payload() call: Req<'preview'>): Promise<RolloutPreview> {
    return this.previewRollout.execute({ ctx: call.ctx, id: call.params?.id, query: call.query });
  }

  @MessagePattern(RolloutMessages.list.pattern)
  async list(@Payload() call: Req<'list'>): Promise<RolloutList> {
    return this.listRollouts.execute({ ctx: call.ctx, query: call.query });
  }

  @MessagePattern(RolloutMessages.evaluate.pattern)
  async evaluate(): Promise<RolloutEvaluation> {
    return this.evaluateRollouts.execute();
  }
}
