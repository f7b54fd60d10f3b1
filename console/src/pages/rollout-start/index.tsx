import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { addFirmwareTag as tagLimits, createFirmwareRollout as limits } from '../../api/limits.gen';
import { Link, navigate } from '../../app/router';
import { ErrorMessage, Loading } from '../../components/feedback';
import { check, Field, inputLimits, PanelForm } from '../../components/form';
import { Table } from '../../components/table';
import { TagEditor } from '../../components/tags';
import { useAction, useDebounced, useLoad } from '../../components/use-load';
import type { PageProps } from '../../routes';
import { type HaltRule, minutes, OUTCOMES, rolloutPath } from '../rollout/shared';

/** A stage as typed (text, so a half-typed number stays on the screen). */
interface StageDraft {
  percent: string;
  min_devices: string;
  hold_minutes: string;
}
interface RuleDraft {
  outcome: HaltRule['outcome'];
  max_percent: string;
  min_outcomes: string;
}

/**
 * The plan a release manager starts from (docs/console.md "Rollouts"): 1 % of the audience
 * (at least 10 devices) for an hour, 10 % (at least 50) for four hours, half for a day, then
 * everyone, a day before the rollout completes.
 */
const DEFAULT_STAGES: readonly StageDraft[] = [
  { percent: '1', min_devices: '10', hold_minutes: '60' },
  { percent: '10', min_devices: '50', hold_minutes: '240' },
  { percent: '50', min_devices: '0', hold_minutes: '1440' },
  { percent: '100', min_devices: '0', hold_minutes: '1440' },
];
/** The API's safe defaults (a rollout created without halt_rules gets the same). */
const DEFAULT_RULES: readonly RuleDraft[] = [
  { outcome: 'failed', max_percent: '5', min_outcomes: '20' },
  { outcome: 'rolled_back', max_percent: '5', min_outcomes: '20' },
  { outcome: 'silent', max_percent: '2', min_outcomes: '20' },
];
const DEFAULT_GRACE = '60';
const DEFAULT_SILENT_AFTER = '1440';

const stageLimits = limits.stages.items.properties;
const ruleLimits = limits.halt_rules.items.properties;
const HALT_OUTCOME_LABELS = ruleLimits.outcome.oneOf.map((o) => [o, OUTCOMES.find((x) => x.key === o)?.label ?? o] as const);

const num = (text: string) => (text.trim() === '' ? Number.NaN : Number(text.trim()));

/** The first problem with the plan as typed (the API's own messages), else null. */
function planProblem(
  stages: readonly StageDraft[],
  rules: readonly RuleDraft[] | null,
  extraTags: readonly string[],
  grace: string,
  silentAfter: string,
): string | null {
  if (stages.length === 0 || stages.length > limits.stages.maxItems) return limits.stages.message;
  for (const [i, s] of stages.entries()) {
    const problem =
      check(stageLimits.percent, num(s.percent)) ?? check(stageLimits.min_devices, num(s.min_devices)) ?? check(stageLimits.hold_minutes, num(s.hold_minutes));
    if (problem) return `Stage ${i + 1}: ${problem}`;
  }
  for (const [i, r] of (rules ?? []).entries()) {
    const problem = check(ruleLimits.max_percent, num(r.max_percent)) ?? check(ruleLimits.min_outcomes, num(r.min_outcomes));
    if (problem) return `Halt rule ${i + 1}: ${problem}`;
  }
  if (rules && rules.length > limits.halt_rules.maxItems) return limits.halt_rules.message;
  return check(limits.extra_tags, extraTags) ?? check(limits.grace_minutes, num(grace)) ?? check(limits.silent_after_minutes, num(silentAfter));
}

/** How many devices each stage of the plan would reach now (GET /firmware/{id}/rollout/preview), asked once typing pauses. */
function StagePreview({ id, stages, extraTags, valid }: { id: string; stages: readonly StageDraft[]; extraTags: readonly string[]; valid: boolean }) {
  const plan = useDebounced(
    valid
      ? JSON.stringify({
          stages: stages.map((s) => num(s.percent)).join(','),
          min_devices: stages.map((s) => num(s.min_devices)).join(','),
          extra_tags: extraTags.join(',') || undefined,
        })
      : '',
    400,
  );
  const preview = useLoad(
    async () =>
      plan ? ok(await api.GET('/firmware/{id}/rollout/preview', { params: { path: { id }, query: JSON.parse(plan) as { stages: string } } })) : null,
    [id, plan],
  );
  return (
    <section aria-labelledby="preview-heading">
      <h3 id="preview-heading">Devices each stage reaches now</h3>
      <ErrorMessage error={preview.error} />
      {preview.data ? (
        <>
          <p id="preview-audience">
            The audience holds {preview.data.audience.toLocaleString()} {preview.data.audience === 1 ? 'device' : 'devices'} now (known, active devices of the
            build&apos;s rule{extraTags.length ? ' with one of the extra tags' : ''}); each stage adds devices to the one before.
          </p>
          <Table
            columns={['Stage', { label: 'Percent', num: true }, { label: 'Minimum devices', num: true }, { label: 'Devices reached', num: true }]}
            id="preview-stages"
          >
            {preview.data.stages.map((s, i) => (
              <tr key={i}>
                <td>{i + 1}</td>
                <td class="num">{s.percent} %</td>
                <td class="num">{s.min_devices.toLocaleString()}</td>
                <td class="num">{s.devices.toLocaleString()}</td>
              </tr>
            ))}
          </Table>
        </>
      ) : preview.loading && plan ? (
        <Loading what="the preview" />
      ) : (
        !plan && <p class="hint">The preview appears once the stages are valid.</p>
      )}
    </section>
  );
}

/**
 * Starts a staged rollout of a build (POST /firmware/{id}/rollout): the stages, extra tags
 * narrowing the audience, the halt rules (the safe defaults shown), what happens on completion,
 * and a preview of the devices each stage reaches.
 */
export function RolloutStartPage({ params }: PageProps) {
  const id = params.id;
  const build = useLoad(async () => ok(await api.GET('/firmware/{id}', { params: { path: { id } } })), [id]);
  const [stages, setStages] = useState<StageDraft[]>(() => DEFAULT_STAGES.map((s) => ({ ...s })));
  const [extraTags, setExtraTags] = useState<string[]>([]);
  const [halting, setHalting] = useState(true);
  const [rules, setRules] = useState<RuleDraft[]>(() => DEFAULT_RULES.map((r) => ({ ...r })));
  const [generalRelease, setGeneralRelease] = useState(false);
  const [grace, setGrace] = useState(DEFAULT_GRACE);
  const [silentAfter, setSilentAfter] = useState(DEFAULT_SILENT_AFTER);
  const [startAt, setStartAt] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const livePlanProblem = planProblem(stages, halting ? rules : null, extraTags, grace, silentAfter);
  const start = useAction(async () => {
    setProblem(livePlanProblem);
    if (livePlanProblem) return;
    ok(
      await api.POST('/firmware/{id}/rollout', {
        params: { path: { id } },
        body: {
          stages: stages.map((s) => ({ percent: num(s.percent), min_devices: num(s.min_devices), hold_minutes: num(s.hold_minutes) })),
          extra_tags: extraTags.length ? extraTags : undefined,
          halt_rules: halting ? rules.map((r) => ({ outcome: r.outcome, max_percent: num(r.max_percent), min_outcomes: num(r.min_outcomes) })) : [],
          complete_as_general_release: generalRelease,
          grace_minutes: num(grace),
          silent_after_minutes: num(silentAfter),
          start_at: startAt ? new Date(startAt).toISOString() : undefined,
        },
      }),
    );
    navigate(rolloutPath(id));
  });
  const setStage = (i: number, change: Partial<StageDraft>) => setStages(stages.map((s, j) => (j === i ? { ...s, ...change } : s)));
  const setRule = (i: number, change: Partial<RuleDraft>) => setRules(rules.map((r, j) => (j === i ? { ...r, ...change } : r)));
  if (build.data === undefined) return build.loading ? <Loading what="the build" /> : <ErrorMessage error={build.error} />;
  const b = build.data;
  return (
    <section>
      <p>
        <Link href={`/console/firmware/${encodeURIComponent(id)}`}>Back to the build</Link>
      </p>
      <h1>
        Start a staged rollout of {b.fw_name} {b.fw_version}
      </h1>
      <p>
        The build is offered to a growing share of its audience (
        {b.general_release
          ? 'every known device of its product line'
          : b.tags.length
            ? `devices tagged ${b.tags.join(', ')}`
            : b.tag_filter_disabled
              ? 'every known device of its product line'
              : 'nobody yet: give it a tag first'}
        ), stage by stage. After each stage&apos;s hold time the next one starts if no halt rule trips; a tripped rule halts the rollout and the build is
        offered to nobody new.
      </p>
      <PanelForm
        title="The plan"
        submit={startAt ? 'Schedule the rollout' : 'Start the rollout'}
        disabled={start.busy}
        onSubmit={() => void start.run()}
        error={problem ?? start.error}
        after={<StagePreview id={id} stages={stages} extraTags={extraTags} valid={livePlanProblem === null} />}
      >
        <fieldset>
          <legend>Stages (each a share of the audience, growing)</legend>
          <Table columns={['Stage', 'Percent of the audience', 'At least (devices)', 'Hold (minutes)', { label: 'Remove', hidden: true }]}>
            {stages.map((s, i) => (
              <tr key={i}>
                <td>{i + 1}</td>
                <td>
                  <input
                    type="number"
                    aria-label={`Stage ${i + 1} percent`}
                    value={s.percent}
                    {...inputLimits(stageLimits.percent)}
                    onInput={(e) => setStage(i, { percent: e.currentTarget.value })}
                  />
                </td>
                <td>
                  <input
                    type="number"
                    aria-label={`Stage ${i + 1} minimum devices`}
                    value={s.min_devices}
                    {...inputLimits(stageLimits.min_devices)}
                    onInput={(e) => setStage(i, { min_devices: e.currentTarget.value })}
                  />
                </td>
                <td>
                  <input
                    type="number"
                    aria-label={`Stage ${i + 1} hold minutes`}
                    aria-describedby={`hold-${i}`}
                    value={s.hold_minutes}
                    {...inputLimits(stageLimits.hold_minutes)}
                    onInput={(e) => setStage(i, { hold_minutes: e.currentTarget.value })}
                  />
                  <span class="hint" id={`hold-${i}`}>
                    {Number.isInteger(num(s.hold_minutes)) && num(s.hold_minutes) >= 0 ? ` ${minutes(num(s.hold_minutes))}` : ''}
                  </span>
                </td>
                <td>
                  <button
                    type="button"
                    aria-label={`Remove stage ${i + 1}`}
                    disabled={stages.length === 1}
                    onClick={() => setStages(stages.filter((_, j) => j !== i))}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </Table>
          <button
            type="button"
            disabled={stages.length >= limits.stages.maxItems}
            onClick={() => setStages([...stages, { percent: '100', min_devices: '0', hold_minutes: '60' }])}
          >
            Add a stage
          </button>
        </fieldset>
        <fieldset>
          <legend>Narrow the audience (optional)</legend>
          <p class="hint">Only devices carrying one of these tags as well are reached.</p>
          <TagEditor
            label="Extra tags"
            tags={extraTags}
            limits={tagLimits.tag}
            edit={{
              add: async (tag) => setExtraTags(extraTags.includes(tag) ? extraTags : [...extraTags, tag]),
              remove: async (tag) => setExtraTags(extraTags.filter((t) => t !== tag)),
              changed: () => undefined,
            }}
          />
        </fieldset>
        <fieldset>
          <legend>Halt rules</legend>
          <Field label="Halt the rollout by itself when a rule trips" inline>
            <input type="checkbox" checked={halting} onChange={(e) => setHalting(e.currentTarget.checked)} />
          </Field>
          {halting && (
            <>
              <p class="hint">
                A rule trips when its outcome is more than its share of the devices with an outcome so far, counted once at least that many devices have one.
                The defaults are the safe ones.
              </p>
              <Table columns={['Outcome', 'More than (%)', 'Of at least (outcomes)', { label: 'Remove', hidden: true }]}>
                {rules.map((r, i) => (
                  <tr key={i}>
                    <td>
                      <select
                        aria-label={`Rule ${i + 1} outcome`}
                        value={r.outcome}
                        onChange={(e) => setRule(i, { outcome: e.currentTarget.value as RuleDraft['outcome'] })}
                      >
                        {HALT_OUTCOME_LABELS.map(([value, text]) => (
                          <option key={value} value={value}>
                            {text}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <input
                        type="number"
                        aria-label={`Rule ${i + 1} percent`}
                        value={r.max_percent}
                        {...inputLimits(ruleLimits.max_percent)}
                        onInput={(e) => setRule(i, { max_percent: e.currentTarget.value })}
                      />
                    </td>
                    <td>
                      <input
                        type="number"
                        aria-label={`Rule ${i + 1} minimum outcomes`}
                        value={r.min_outcomes}
                        {...inputLimits(ruleLimits.min_outcomes)}
                        onInput={(e) => setRule(i, { min_outcomes: e.currentTarget.value })}
                      />
                    </td>
                    <td>
                      <button type="button" aria-label={`Remove rule ${i + 1}`} onClick={() => setRules(rules.filter((_, j) => j !== i))}>
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </Table>
              <div class="actions">
                <button
                  type="button"
                  disabled={rules.length >= limits.halt_rules.maxItems}
                  onClick={() => setRules([...rules, { outcome: 'not_installed', max_percent: '10', min_outcomes: '20' }])}
                >
                  Add a rule
                </button>
                <button type="button" onClick={() => setRules(DEFAULT_RULES.map((r) => ({ ...r })))}>
                  Back to the safe defaults
                </button>
              </div>
            </>
          )}
        </fieldset>
        <fieldset>
          <legend>Outcomes and completion</legend>
          <Field label="Grace time (minutes)" hint="A device seen this long after its offer, still on an older version, counts as not installed.">
            <input type="number" value={grace} {...inputLimits(limits.grace_minutes)} onInput={(e) => setGrace(e.currentTarget.value)} />
          </Field>
          <Field label="Silent after (minutes)" hint="A device offered the build, not updated and not seen for this long, counts as silent.">
            <input type="number" value={silentAfter} {...inputLimits(limits.silent_after_minutes)} onInput={(e) => setSilentAfter(e.currentTarget.value)} />
          </Field>
          <Field label="Start at (optional)" hint="Empty: start now. A time: the rollout waits, scheduled, until then.">
            <input type="datetime-local" value={startAt} onInput={(e) => setStartAt(e.currentTarget.value)} />
          </Field>
          <Field label="Make it a general release when complete" hint="Then every device of its product line, known or not, is offered it." inline>
            <input type="checkbox" checked={generalRelease} onChange={(e) => setGeneralRelease(e.currentTarget.checked)} />
          </Field>
        </fieldset>
      </PanelForm>
    </section>
  );
}
