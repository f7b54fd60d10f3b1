import type { CustomerId, HaltRule, RolloutAction, RolloutHalt, RolloutState } from '@app/contracts';

/** One stage of a rollout's plan. */
export interface StagePlan {
  readonly percent: number;
  readonly minDevices: number;
  readonly holdMinutes: number;
}

/** When a stage started and what it was cut for (the audience then, the devices its threshold reaches). */
export interface StageStart {
  readonly startedAt: string;
  readonly audience: number;
  readonly target: number;
}

/** A rollout as the firmware app keeps it (firmware.rollout). */
export interface RolloutRecord {
  readonly id: string;
  readonly customerId: CustomerId;
  readonly buildId: string;
  readonly state: RolloutState;
  readonly stages: readonly StagePlan[];
  readonly currentStage: number;
  readonly stageStartedAt: Date | null;
  /** The position cut-off of every stage started so far (non-decreasing). */
  readonly thresholds: readonly number[];
  readonly stageLog: readonly StageStart[];
  readonly extraTags: readonly string[];
  readonly haltRules: readonly HaltRule[];
  readonly halt: RolloutHalt | null;
  readonly completeAsGeneralRelease: boolean;
  readonly graceMinutes: number;
  readonly silentAfterMinutes: number;
  readonly startAt: Date | null;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly revision: number;
}

/** The states in which the build is still under the rollout (not its own rule). */
export const UNDER_ROLLOUT: readonly RolloutState[] = ['scheduled', 'running', 'paused', 'halted', 'aborted'];

/**
 * What an action does from a state (docs/api.md "Rollouts"): `same` (already so: 200, nothing
 * changes), `go` (the transition applies), or `refuse` (409). advance from scheduled starts the
 * first stage; advance from the last stage completes.
 */
export function actionFrom(action: RolloutAction, state: RolloutState): 'same' | 'go' | 'refuse' {
  switch (action) {
    case 'pause':
      return state === 'paused' ? 'same' : state === 'running' ? 'go' : 'refuse';
    case 'resume':
      return state === 'running' ? 'same' : state === 'paused' || state === 'halted' ? 'go' : 'refuse';
    case 'advance':
      return state === 'running' || state === 'paused' || state === 'scheduled' ? 'go' : 'refuse';
    case 'abort':
      return state === 'aborted' ? 'same' : state === 'completed' ? 'refuse' : 'go';
  }
}

/** The first halt rule the outcomes trip, with its figures; null when healthy. `decided`: outcomes other than pending. */
export function trippedRule(rules: readonly HaltRule[], counts: Readonly<Record<string, number>>, at: Date): RolloutHalt | null {
  const decided = Object.entries(counts).reduce((sum, [outcome, n]) => (outcome === 'pending' ? sum : sum + n), 0);
  for (const rule of rules) {
    if (decided < rule.min_outcomes) continue;
    const count = counts[rule.outcome] ?? 0;
    const percent = decided === 0 ? 0 : (count * 100) / decided;
    if (percent > rule.max_percent) return { rule, count, outcomes: decided, percent: Math.round(percent * 100) / 100, at: at.toISOString() };
  }
  return null;
}

/** Whether the current stage has been held long enough to move on. */
export function holdPassed(rollout: Pick<RolloutRecord, 'stages' | 'currentStage' | 'stageStartedAt'>, now: Date): boolean {
  const stage = rollout.stages[rollout.currentStage];
  if (!stage || !rollout.stageStartedAt) return false;
  return now.getTime() - rollout.stageStartedAt.getTime() >= stage.holdMinutes * 60_000;
}
