import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { FirmwareErrors, type Rollout } from '@app/contracts';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { RolloutStages } from '../../rollouts/rollout-stages.js';
import { RolloutSteering } from '../../rollouts/rollout-steering.js';
import type { StartRolloutCommand } from './start-rollout.command.js';

/**
 * POST /firmware/{id}/rollout: the rollout is stored scheduled (start_at) or started at once
 * (stage 0 cut from the audience now). At most one open rollout per build (409).
 */
@Injectable()
export class StartRolloutUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(RolloutStages) private readonly stages: RolloutStages,
    @Inject(RolloutSteering) private readonly steering: RolloutSteering,
  ) {}

  async execute(command: StartRolloutCommand): Promise<Rollout> {
    const { ctx } = command;
    const customerId = ctx.customer.id;
    const build = await this.store.repos.builds.findById({ customerId, id: command.buildId });
    if (!build) throw FirmwareErrors.build_not_found();
    if (build.status !== 'active') throw FirmwareErrors.rollout_build_withdrawn();
    const created = await this.store.repos.rollouts.insert({
      id: randomUUID(),
      customerId,
      buildId: build.id,
      state: 'scheduled',
      stages: command.stages,
      currentStage: -1,
      stageStartedAt: null,
      thresholds: [],
      stageLog: [],
      extraTags: command.extraTags,
      haltRules: command.haltRules,
      halt: null,
      completeAsGeneralRelease: command.completeAsGeneralRelease,
      graceMinutes: command.graceMinutes,
      silentAfterMinutes: command.silentAfterMinutes,
      startAt: command.startAt,
      createdBy: ctx.actor,
    });
    if (!created) throw FirmwareErrors.rollout_exists();
    // A build under a rollout is offered by the rollout from now on (scheduled: to nobody new).
    await this.steering.created(ctx, created);
    let rollout = created;
    if (command.startAt === null) rollout = (await this.steering.startStage(ctx, rollout, build, 0, new Date())) ?? rollout;
    return this.stages.view(rollout, { stages: [] });
  }
}
