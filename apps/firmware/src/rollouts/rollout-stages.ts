import { Inject, Injectable } from '@nestjs/common';
import {
  type CustomerId,
  FirmwareErrors,
  ROLLOUT_BUCKETS,
  ROLLOUT_OUTCOMES,
  RegistryRolloutMessages,
  type Rollout,
  type RolloutOutcome,
  type RolloutProgress,
  rolloutOffset,
  stageTarget,
} from '@app/contracts';
import { MessageBus } from '@app/infra';
import type { Build } from '../domain/build.js';
import type { RolloutRecord, StagePlan, StageStart } from '../domain/rollout.js';
import { audienceOf } from '../update-check/selection.js';

/** A stage cut: its position threshold and what it was cut for. */
export interface StageCut {
  readonly threshold: number;
  readonly start: StageStart;
}

function zeroOutcomes(): Record<RolloutOutcome, number> {
  return Object.fromEntries(ROLLOUT_OUTCOMES.map((o) => [o, 0])) as Record<RolloutOutcome, number>;
}

/**
 * The registry's side of a rollout seen from the firmware app: stage thresholds (the audience
 * by position for the rollout's offset) and outcomes, and the rollout's view (docs/api.md
 * "Rollouts").
 */
@Injectable()
export class RolloutStages {
  constructor(@Inject(MessageBus) private readonly bus: MessageBus) {}

  /** The audience of a build under a rollout: its own rule's devices (every device for a general release or tag_filter_disabled), narrowed by extra tags. */
  audienceSpec(customerId: CustomerId, build: Build, extraTags: readonly string[]) {
    const rule = audienceOf({ ...build, status: 'active' });
    return {
      customerId,
      tags: rule.rule === 'devices_sharing_tag' ? [...rule.tags] : null,
      extraTags: extraTags.length ? [...extraTags] : null,
      hwName: build.hwName,
      hwVersion: build.hwVersion,
      fwName: build.fwName,
    };
  }

  /** Devices per stage for a plan (the preview), and the audience. */
  async reach(customerId: CustomerId, build: Build, extraTags: readonly string[], stages: readonly StagePlan[], offset = 0) {
    const spec = this.audienceSpec(customerId, build, extraTags);
    const counted = await this.ask(() => this.bus.send(RegistryRolloutMessages.thresholds, { ...spec, offset, targets: [] }));
    // A stage never reaches fewer devices than the one before it (thresholds only grow).
    let reached = 0;
    const targets = stages.map((s) => (reached = Math.max(reached, stageTarget(counted.audience, s.percent, s.minDevices))));
    return { audience: counted.audience, devices: targets };
  }

  /**
   * The cut of stage `index` of a rollout now: the smallest threshold reaching its target of the
   * audience (every device at 100 %), never below the threshold of the stage before (stages only
   * add devices).
   */
  async cut(rollout: RolloutRecord, build: Build, index: number, now: Date): Promise<StageCut> {
    const stage = rollout.stages[index];
    const spec = this.audienceSpec(rollout.customerId, build, rollout.extraTags);
    const offset = rolloutOffset(rollout.id);
    // One pass over the audience: the registry counts it and cuts the stage's target of it.
    const cut = await this.ask(() =>
      this.bus.send(RegistryRolloutMessages.thresholds, { ...spec, offset, targets: [], stages: [{ percent: stage.percent, minDevices: stage.minDevices }] }),
    );
    const target = stageTarget(cut.audience, stage.percent, stage.minDevices);
    const previous = index > 0 ? (rollout.thresholds[index - 1] ?? 0) : 0;
    const threshold = Math.max(previous, stage.percent >= 100 ? ROLLOUT_BUCKETS : cut.thresholds[0]);
    return { threshold, start: { startedAt: now.toISOString(), audience: cut.audience, target } };
  }

  async progress(rollout: RolloutRecord, build: Build): Promise<RolloutProgress> {
    return this.ask(() =>
      this.bus.send(RegistryRolloutMessages.progress, {
        customerId: rollout.customerId,
        rolloutId: rollout.id,
        versionKey: build.versionKey.toString('hex'),
        graceMinutes: rollout.graceMinutes,
        silentAfterMinutes: rollout.silentAfterMinutes,
      }),
    );
  }

  /** Outcome counts over every stage. */
  totals(progress: RolloutProgress): Record<RolloutOutcome, number> {
    const totals = zeroOutcomes();
    for (const stage of progress.stages) for (const o of ROLLOUT_OUTCOMES) totals[o] += stage.outcomes[o] ?? 0;
    return totals;
  }

  view(rollout: RolloutRecord, progress: RolloutProgress): Rollout {
    const byStage = new Map(progress.stages.map((s) => [s.stage, s]));
    return {
      id: rollout.id,
      build_id: rollout.buildId,
      state: rollout.state,
      current_stage: rollout.currentStage,
      stage_started_at: rollout.stageStartedAt?.toISOString() ?? null,
      audience: rollout.stageLog[rollout.currentStage]?.audience ?? null,
      stages: rollout.stages.map((s, index) => ({
        index,
        percent: s.percent,
        min_devices: s.minDevices,
        hold_minutes: s.holdMinutes,
        started_at: rollout.stageLog[index]?.startedAt ?? null,
        target_devices: rollout.stageLog[index]?.target ?? null,
        offered: byStage.get(index)?.offered ?? 0,
        outcomes: { ...zeroOutcomes(), ...(byStage.get(index)?.outcomes ?? {}) },
      })),
      outcomes: this.totals(progress),
      extra_tags: [...rollout.extraTags],
      halt_rules: [...rollout.haltRules],
      halt: rollout.halt,
      complete_as_general_release: rollout.completeAsGeneralRelease,
      grace_minutes: rollout.graceMinutes,
      silent_after_minutes: rollout.silentAfterMinutes,
      start_at: rollout.startAt?.toISOString() ?? null,
      created_by: rollout.createdBy,
      created_at: rollout.createdAt.toISOString(),
      updated_at: rollout.updatedAt.toISOString(),
      revision: rollout.revision,
    };
  }

  private async ask<T>(question: () => Promise<T>): Promise<T> {
    try {
      return await question();
    } catch {
      throw FirmwareErrors.rollout_audience_unavailable();
    }
  }
}
