import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type CustomerId, FirmwareErrors, type RolloutHalt, type TenantRequestContext } from '@app/contracts';
import type { Build } from '../domain/build.js';
import type { RolloutRecord } from '../domain/rollout.js';
import type { RolloutTransition } from '../repositories/rollout.repository.js';
import { FirmwareStore } from '../repositories/firmware.store.js';
import { FirmwareChanges } from '../services/firmware-changes.js';
import { ChangeBuildUseCase } from '../use-cases/change-build/change-build.usecase.js';
import { RolloutStages } from './rollout-stages.js';

/** The evaluator acts as this actor in audit entries. */
export const EVALUATOR_ACTOR = 'system:rollout-evaluator';

/**
 * The context the evaluator acts in for a customer (audit entries, the general release on
 * completion): the customer's domain as identity knows it, so its audit list shows the entries.
 */
export function evaluatorContext(customer: { id: CustomerId; domain: string; isSandbox: boolean }): TenantRequestContext {
  return {
    requestId: randomUUID(),
    principal: null,
    customer: { id: customer.id, domain: customer.domain, isSandbox: customer.isSandbox },
    actor: EVALUATOR_ACTOR,
    auditActor: EVALUATOR_ACTOR,
    ip: '',
    userAgent: '',
    baseUrl: '',
  };
}

/**
 * Every transition of a rollout, for the endpoints and the evaluator alike: a conditional
 * update on the revision read (null when the rollout moved meanwhile: the caller reads it again),
 * then every update-check index drops the customer's builds (FirmwareEvents.changed) and an audit
 * entry records it (action `firmware.rollout.<what>`, before and after).
 */
@Injectable()
export class RolloutSteering {
  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(FirmwareChanges) private readonly changes: FirmwareChanges,
    @Inject(RolloutStages) private readonly stages: RolloutStages,
    @Inject(ChangeBuildUseCase) private readonly changeBuild: ChangeBuildUseCase,
  ) {}

  async apply(ctx: TenantRequestContext, rollout: RolloutRecord, what: string, change: RolloutTransition): Promise<RolloutRecord | null> {
    const after = await this.store.repos.rollouts.transition({ customerId: rollout.customerId, id: rollout.id, revision: rollout.revision, change });
    if (!after) return null;
    this.changes.changed(rollout.customerId);
    await this.changes.audit(ctx, `firmware.rollout.${what}`, { type: 'rollout', id: rollout.id }, summary(rollout), summary(after));
    return after;
  }

  async created(ctx: TenantRequestContext, rollout: RolloutRecord): Promise<void> {
    this.changes.changed(rollout.customerId);
    await this.changes.audit(ctx, 'firmware.rollout.create', { type: 'rollout', id: rollout.id }, null, summary(rollout));
  }

  /** Starts stage `index` (the next one) now. */
  async startStage(ctx: TenantRequestContext, rollout: RolloutRecord, build: Build, index: number, now: Date): Promise<RolloutRecord | null> {
    const cut = await this.stages.cut(rollout, build, index, now);
    const thresholds = [...rollout.thresholds.slice(0, index), cut.threshold];
    const stageLog = [...rollout.stageLog.slice(0, index), cut.start];
    const state = rollout.state === 'paused' ? 'paused' : 'running';
    return this.apply(ctx, rollout, index === 0 ? 'start' : 'advance', { state, currentStage: index, stageStartedAt: now, thresholds, stageLog });
  }

  /** The last stage held: completed, and a general release when asked (the PATCH's own change). */
  async complete(ctx: TenantRequestContext, rollout: RolloutRecord): Promise<RolloutRecord | null> {
    const after = await this.apply(ctx, rollout, 'complete', { state: 'completed' });
    if (after && rollout.completeAsGeneralRelease) {
      await this.changeBuild.execute(ctx, { id: rollout.buildId, changes: { generalRelease: true } }, 'firmware.update');
    }
    return after;
  }

  async halt(ctx: TenantRequestContext, rollout: RolloutRecord, halt: RolloutHalt): Promise<RolloutRecord | null> {
    return this.apply(ctx, rollout, 'halt', { state: 'halted', halt });
  }

  /** The next stage, or completion after the last. */
  async advance(ctx: TenantRequestContext, rollout: RolloutRecord, build: Build, now: Date): Promise<RolloutRecord | null> {
    const next = rollout.currentStage + 1;
    if (next >= rollout.stages.length) return this.complete(ctx, rollout);
    return this.startStage(ctx, rollout, build, next, now);
  }

  async buildOf(rollout: RolloutRecord): Promise<Build> {
    const build = await this.store.repos.builds.findById({ customerId: rollout.customerId, id: rollout.buildId });
    if (!build) throw FirmwareErrors.build_not_found();
    return build;
  }
}

function summary(rollout: RolloutRecord): Record<string, unknown> {
  return { build_id: rollout.buildId, state: rollout.state, current_stage: rollout.currentStage, revision: rollout.revision, halt: rollout.halt };
}
