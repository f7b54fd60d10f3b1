import type { Paths } from '../../api/client';
import { Link } from '../../app/router';
import type { SeriesTone } from '../../components/bar-chart';

export type Rollout = Paths['/firmware/{id}/rollout']['get']['responses'][200]['content']['application/json'];
export type RolloutState = Rollout['state'];
export type RolloutSummary = Paths['/rollouts']['get']['responses'][200]['content']['application/json']['items'][number];
export type RolloutOutcome = keyof Rollout['outcomes'];
export type HaltRule = Rollout['halt_rules'][number];

/** A build's rollout page in the console. */
export function rolloutPath(buildId: string): string {
  return `/console/firmware/${encodeURIComponent(buildId)}/rollout`;
}

/** What each state means to a release manager (docs/console.md "Rollouts"). */
export const STATE_MEANING: Readonly<Record<RolloutState, string>> = {
  scheduled: 'Waits for its start time; nobody is offered the build under it yet.',
  running: 'Offers the build to the devices of its current stage; the evaluator moves on after the hold time if the outcomes are healthy.',
  paused: 'Devices already reached are still offered the build, nobody new; the evaluator does not move on.',
  halted: 'A halt rule tripped: the build is offered to nobody new until someone resumes or aborts the rollout.',
  completed: 'Every stage ran: the build follows its own release rule again.',
  aborted: 'Stopped for good: the build is offered to nobody new under this rollout.',
};

/**
 * The outcomes in the order a stage's devices move through them, with what each means and
 * its colour (the chart's series).
 */
export const OUTCOMES: readonly { key: RolloutOutcome; label: string; tone: SeriesTone; meaning: string }[] = [
  { key: 'pending', label: 'pending', tone: 'muted', meaning: 'offered the build, not checked in since' },
  { key: 'updated', label: 'updated', tone: 'ok', meaning: "now reports the build's version" },
  { key: 'not_installed', label: 'not installed', tone: 'warn', meaning: 'checked in again after the grace time, still on an older version' },
  { key: 'rolled_back', label: 'rolled back', tone: 'alert', meaning: "reported the build's version, later an older one" },
  { key: 'silent', label: 'silent', tone: 'other', meaning: 'offered the build, then not seen for longer than the silence time' },
  { key: 'failed', label: 'failed', tone: 'danger', meaning: 'the device reported that installing it failed' },
];

export function outcomeLabel(outcome: RolloutOutcome): string {
  return OUTCOMES.find((o) => o.key === outcome)?.label ?? outcome;
}

/** "running, stage 2 of 4 (10 %)": where a rollout stands, in words. */
export function standing(state: RolloutState, currentStage: number, percents: readonly number[]): string {
  if (currentStage < 0 || state === 'completed') return state;
  return `${state}, stage ${currentStage + 1} of ${percents.length} (${percents[currentStage]} %)`;
}

/** A rollout's state as a coloured word, linking to its page when `buildId` is given. */
export function RolloutBadge({
  state,
  currentStage,
  percents,
  buildId,
}: {
  state: RolloutState;
  currentStage: number;
  percents: readonly number[];
  buildId?: string;
}) {
  const text = standing(state, currentStage, percents);
  const badge = <span class={`rollout-state state-${state}`}>{text}</span>;
  return buildId ? <Link href={rolloutPath(buildId)}>{badge}</Link> : badge;
}

/** "failed over 5 % of at least 20 outcomes": a halt rule in words. */
export function haltRuleText(rule: HaltRule): string {
  return `${outcomeLabel(rule.outcome)} over ${rule.max_percent} % of at least ${rule.min_outcomes.toLocaleString()} outcomes`;
}

/** "90 min", "4 h", "2 d 3 h": a duration in minutes as a person reads it. */
export function minutes(value: number): string {
  if (value < 60 || value % 60 !== 0) return `${value} min`;
  const hours = value / 60;
  if (hours < 24) return `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}
