import { Inject, Injectable } from '@nestjs/common';
import { FirmwareErrors, type Rollout } from '@app/contracts';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { RolloutStages } from '../../rollouts/rollout-stages.js';
import type { RolloutOfBuildCommand } from './rollout-of-build.command.js';

/** GET /firmware/{id}/rollout: the build's latest rollout with device and outcome counts per stage (from the registry's indexes). */
@Injectable()
export class ReadRolloutUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(RolloutStages) private readonly stages: RolloutStages,
  ) {}

  async execute(command: RolloutOfBuildCommand): Promise<Rollout> {
    const customerId = command.ctx.customer.id;
    const build = await this.store.repos.builds.findById({ customerId, id: command.buildId });
    if (!build) throw FirmwareErrors.build_not_found();
    const rollout = await this.store.repos.rollouts.latestOfBuild({ customerId, buildId: build.id });
    if (!rollout) throw FirmwareErrors.rollout_not_found();
    return this.stages.view(rollout, await this.stages.progress(rollout, build));
  }
}
