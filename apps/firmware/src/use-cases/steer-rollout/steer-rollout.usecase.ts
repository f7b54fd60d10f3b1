import { Inject, Injectable } from '@nestjs/common';
import { FirmwareErrors, type Rollout, type RolloutAction } from '@app/contracts';
import { actionFrom, type RolloutRecord } from '../../domain/rollout.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { RolloutStages } from '../../rollouts/rollout-stages.js';
import { RolloutSteering } from '../../rollouts/rollout-steering.js';
import type { RolloutOfBuildCommand } from '../read-rollout/rollout-of-build.command.js';

/** Attempts when the evaluator moved the rollout between the read and the conditional update. */
const ATTEMPTS = 3;

/**
 * POST /firmware/{id}/rollout/pause|resume|advance|abort (docs/api.md "Rollouts"): the
 * transition the state allows (domain/rollout.ts actionFrom), 409 otherwise; repeating an
 * action the state already reflects changes nothing.
 */
@Injectable()
export class SteerRolloutUseCase {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(RolloutStages) private readonly stages: RolloutStages,
    @Inject(RolloutSteering) private readonly steering: RolloutSteering,
  ) {}

  async execute(action: RolloutAction, command: RolloutOfBuildCommand): Promise<Rollout> {
    const { ctx } = command;
    const customerId = ctx.customer.id;
    const build = await this.store.repos.builds.findById({ customerId, id: command.buildId });
    if (!build) throw FirmwareErrors.build_not_found();
    for (let attempt = 1; ; attempt++) {
      const rollout = await this.store.repos.rollouts.latestOfBuild({ customerId, buildId: build.id });
      if (!rollout) throw FirmwareErrors.rollout_not_found();
      const decision = actionFrom(action, rollout.state);
      if (decision === 'refuse') throw FirmwareErrors.rollout_transition_invalid({ action, state: rollout.state });
      let after: RolloutRecord | null = rollout;
      if (decision === 'go') {
        const now = new Date();
        switch (action) {
          case 'pause':
            after = await this.steering.apply(ctx, rollout, 'pause', { state: 'paused' });
            break;
          case 'resume':
            // The hold of the current stage starts again.
            after = await this.steering.apply(ctx, rollout, 'resume', { state: 'running', stageStartedAt: now });
            break;
          case 'abort':
            after = await this.steering.apply(ctx, rollout, 'abort', { state: 'aborted' });
            break;
          case 'advance':
            after = await this.steering.advance(ctx, rollout, build, now);
            break;
        }
      }
      if (after) return this.stages.view(after, await this.stages.progress(after, build));
      if (attempt >= ATTEMPTS) throw FirmwareErrors.rollout_transition_invalid({ action, state: rollout.state });
    }
  }
}
