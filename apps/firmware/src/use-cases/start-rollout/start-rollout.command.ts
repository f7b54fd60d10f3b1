import {
  DEFAULT_GRACE_MINUTES,
  DEFAULT_HALT_RULES,
  DEFAULT_SILENT_AFTER_MINUTES,
  FirmwareErrors,
  type HaltRule,
  type RequestContext,
  requireTenant,
  ROLLOUT_LIMITS,
  RolloutCreate,
  type TenantRequestContext,
} from '@app/contracts';
import { contractCheck } from '@app/platform';
import type { StagePlan } from '../../domain/rollout.js';

const validBody = contractCheck(RolloutCreate, { where: 'body' });

/** POST /firmware/{id}/rollout, validated when built: the contract's limits, percents strictly increasing, start_at within a year. */
export class StartRolloutCommand {
  private constructor(
    readonly ctx: TenantRequestContext,
    readonly buildId: string,
    readonly stages: readonly StagePlan[],
    readonly extraTags: readonly string[],
    readonly haltRules: readonly HaltRule[],
    readonly completeAsGeneralRelease: boolean,
    readonly graceMinutes: number,
    readonly silentAfterMinutes: number,
    /** null: start now. */
    readonly startAt: Date | null,
  ) {}

  static create(input: { ctx: RequestContext; id: unknown; body: unknown }, now = new Date()): StartRolloutCommand {
    const body = validBody(input.body ?? {});
    const stages = body.stages.map((s) => ({ percent: s.percent, minDevices: s.min_devices ?? 0, holdMinutes: s.hold_minutes ?? 60 }));
    for (let i = 1; i < stages.length; i++) if (stages[i].percent <= stages[i - 1].percent) throw FirmwareErrors.rollout_stages_invalid();
    let startAt: Date | null = body.start_at === undefined ? null : new Date(body.start_at);
    if (startAt !== null && startAt.getTime() > now.getTime() + ROLLOUT_LIMITS.maxStartDays * 86_400_000) {
      throw FirmwareErrors.rollout_start_invalid({ days: ROLLOUT_LIMITS.maxStartDays });
    }
    if (startAt !== null && startAt.getTime() <= now.getTime()) startAt = null;
    return new StartRolloutCommand(
      requireTenant(input.ctx),
      String(input.id ?? ''),
      stages,
      [...new Set(body.extra_tags ?? [])].sort(),
      body.halt_rules ?? DEFAULT_HALT_RULES.map((r) => ({ ...r })),
      body.complete_as_general_release ?? false,
      body.grace_minutes ?? DEFAULT_GRACE_MINUTES,
      body.silent_after_minutes ?? DEFAULT_SILENT_AFTER_MINUTES,
      startAt,
    );
  }
}
