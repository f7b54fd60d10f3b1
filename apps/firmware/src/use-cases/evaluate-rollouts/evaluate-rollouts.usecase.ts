import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type CustomerId, IdentityMessages, type RolloutEvaluation } from '@app/contracts';
import { JsonLogger, MessageBus } from '@app/infra';
import { holdPassed, trippedRule } from '../../domain/rollout.js';
import { FirmwareStore } from '../../repositories/firmware.store.js';
import { RolloutHaltNotice } from '../../rollouts/rollout-halt-notice.js';
import { RolloutStages } from '../../rollouts/rollout-stages.js';
import { evaluatorContext, RolloutSteering } from '../../rollouts/rollout-steering.js';

/** How long one evaluator may hold the lease (a run over every live rollout stays well within it). */
const LEASE_MS = 120_000;
const CUSTOMER_TIMEOUT_MS = 5_000;

/**
 * One evaluation of every live rollout (docs/api.md "Rollouts", "The evaluator"), by one process
 * at a time across replicas (firmware.rollout_evaluator_lease): a scheduled rollout whose start_at
 * passed starts; a running one halts when a halt rule trips over its outcomes so far, else moves
 * to the next stage (or completes) once the current stage's hold time passed. Every transition is
 * conditional on the revision read, so a repeated or concurrent run changes nothing twice, and a
 * restart simply evaluates again.
 */
@Injectable()
export class EvaluateRolloutsUseCase {
  private readonly logger = new JsonLogger('firmware');

  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(RolloutStages) private readonly stages: RolloutStages,
    @Inject(RolloutSteering) private readonly steering: RolloutSteering,
    @Inject(RolloutHaltNotice) private readonly haltNotice: RolloutHaltNotice,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async execute(now = new Date()): Promise<RolloutEvaluation> {
    const result = { evaluated: 0, started: 0, advanced: 0, halted: 0, completed: 0, skipped: false };
    const owner = randomUUID();
    if (!(await this.store.repos.rollouts.acquireLease({ owner, ttlMs: LEASE_MS }))) return { ...result, skipped: true };
    const customers = new Map<CustomerId, Promise<{ id: CustomerId; domain: string; isSandbox: boolean }>>();
    try {
      for (const rollout of await this.store.repos.rollouts.live()) {
        result.evaluated++;
        try {
          if (!customers.has(rollout.customerId)) customers.set(rollout.customerId, this.customer(rollout.customerId));
          const ctx = evaluatorContext(await customers.get(rollout.customerId)!);
          const build = await this.steering.buildOf(rollout);
          if (rollout.state === 'scheduled') {
            if (rollout.startAt && rollout.startAt <= now && (await this.steering.startStage(ctx, rollout, build, 0, now))) result.started++;
            continue;
          }
          const halt = trippedRule(rollout.haltRules, this.stages.totals(await this.stages.progress(rollout, build)), now);
          if (halt) {
            const halted = await this.steering.halt(ctx, rollout, halt);
            if (halted) {
              result.halted++;
              await this.haltNotice.send(halted, build);
            }
            continue;
          }
          if (!holdPassed(rollout, now)) continue;
          const last = rollout.currentStage + 1 >= rollout.stages.length;
          if (await this.steering.advance(ctx, rollout, build, now)) result[last ? 'completed' : 'advanced']++;
        } catch (err) {
          this.logger.warn('could not evaluate a rollout; the next run tries again', {
            rollout_id: rollout.id,
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }
    } finally {
      await this.store.repos.rollouts.releaseLease({ owner }).catch(() => undefined);
    }
    return result;
  }

  /** The customer as identity knows it (its domain goes into the audit entries); while identity does not answer, the domain stays empty rather than delaying a halt. */
  private async customer(id: CustomerId): Promise<{ id: CustomerId; domain: string; isSandbox: boolean }> {
    const info = await this.bus.send(IdentityMessages.resolveCustomer, { id }, { timeoutMs: CUSTOMER_TIMEOUT_MS }).catch(() => null);
    return { id, domain: info?.domain ?? '', isSandbox: info?.isSandbox ?? false };
  }
}
