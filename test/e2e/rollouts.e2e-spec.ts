import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitForAudit } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { evaluateRollouts, NEW_VERSION, OLD_VERSION, offered, RolloutFleet } from './support/rollouts.js';
import { startRuntime, type Runtime } from './support/runtime.js';

/**
 * Staged rollouts end to end (docs/api.md "Rollouts"), driven by the fleet simulator
 * (tools/fleet-simulator) over the real update check: devices poll only when told (pollOnce),
 * and POST /admin/rollouts/evaluate runs the evaluator's minute job now. Each test has a
 * customer and a fleet of its own.
 */
describe('staged rollouts', () => {
  let rt: Runtime;
  const fleets: RolloutFleet[] = [];
  const fleetOf = async (options: Parameters<typeof RolloutFleet.create>[1]) => {
    const fleet = await RolloutFleet.create(rt, options);
    fleets.push(fleet);
    return fleet;
  };

  beforeAll(async () => {
    rt = await startRuntime();
  });
  afterAll(async () => {
    await Promise.all(fleets.map((f) => f.stop()));
    await rt?.stop();
  });

  it('advances through every stage to completion, then the build is a general release', async () => {
    const f = await fleetOf({ count: 10, prefix: 'ro-all' });
    const stages = [20, 50, 100].map((percent) => ({ percent, min_devices: 0, hold_minutes: 0 }));
    const started = await f.start({ stages, complete_as_general_release: true });
    expect(started).toMatchObject({ state: 'running', current_stage: 0, audience: 10 });
    expect(started.stages[0].target_devices).toBe(2);
    const sim = await f.simulator(f.hwids);
    let rollout = started;
    for (let round = 0; rollout.state === 'running' && round < 10; round++) {
      await sim.pollOnce();
      // The devices that installed it check in again, now on the build's version.
      await sim.pollOnce();
      const updated = sim.devices().filter((d) => d.state === 'updated').length;
      // The stage reached at least its target; the devices it reached installed the build.
      expect(updated).toBeGreaterThanOrEqual(rollout.stages[rollout.current_stage].target_devices!);
      await f.rolloutWhen((r) => r.outcomes.updated === updated && offered(r) === updated, `${updated} devices updated`);
      await evaluateRollouts(rt);
      rollout = await f.rollout();
    }
    expect(rollout.state).toBe('completed');
    expect(rollout.stages.map((s) => s.started_at !== null)).toEqual([true, true, true]);
    expect(rollout.outcomes).toMatchObject({ updated: 10, pending: 0, failed: 0, silent: 0 });
    expect(sim.devices().every((d) => d.fwVersion === NEW_VERSION)).toBe(true);
    const build = (await rt.http.get(`/firmware/${f.build.id}`, { auth: f.c.readOnly })).json<{ general_release: boolean }>();
    expect(build.general_release).toBe(true);
    // The evaluator's audit entries carry the customer's domain.
    const complete = await waitForAudit(rt, f.c.domain, (e) => e.action === 'firmware.rollout.complete' && e.target_id === rollout.id);
    expect(complete).toMatchObject({ domain: f.c.domain, actor: 'system:rollout-evaluator' });
    // Once completed the build is its own rule again: a general release, offered to an unnamed check too.
    const anonymous = await rt.http.get(`/firmware/${f.c.domain}/${f.line.hw}/${f.line.rev}/${f.line.fw}/${OLD_VERSION}`);
    expect(anonymous.json<{ id: string }[]>().map((i) => i.id)).toContain(f.build.id);
  });

  it('halts on signed install-failure reports: nobody new is offered the build, the owners get a mail, the audit entry has the figures', async () => {
    const f = await fleetOf({ count: 10, prefix: 'ro-fail', keys: true });
    const started = await f.start({
      stages: [
        { percent: 50, min_devices: 0, hold_minutes: 60 },
        { percent: 100, hold_minutes: 60 },
      ],
      halt_rules: [{ outcome: 'failed', max_percent: 20, min_outcomes: 3 }],
    });
    const since = Date.now();
    const sim = await f.simulator(f.hwids, { fail: 1 }, { report: true });
    await sim.pollOnce();
    const failed = sim.devices().filter((d) => d.state === 'failed');
    expect(failed.length).toBe(started.stages[0].target_devices);
    expect(sim.stats()).toMatchObject({ reports: failed.length, reportRefusals: 0 });
    // The signed reports reach the rollout's outcomes, with their reasons.
    await f.rolloutWhen((r) => r.outcomes.failed === failed.length, `${failed.length} failed`);
    const devices = (await rt.http.get(`/firmware/${f.build.id}/rollout/devices`, { auth: f.c.readOnly, query: { outcome: 'failed' } })).json<{
      items: { hwid: string; reported_reason: string | null }[];
    }>();
    expect(devices.items.map((d) => d.hwid).sort()).toEqual(failed.map((d) => d.hwid).sort());
    expect(devices.items.every((d) => d.reported_reason === 'simulated: image rejected by the bootloader')).toBe(true);

    // This evaluation halts it, or the firmware app's own minute evaluation got there first: either way it is halted now.
    await evaluateRollouts(rt);
    const halted = await f.rollout();
    expect(halted).toMatchObject({
      state: 'halted',
      current_stage: 0,
      halt: { rule: { outcome: 'failed', max_percent: 20, min_outcomes: 3 }, count: failed.length, outcomes: failed.length, percent: 100 },
    });
    // A second evaluation changes nothing (a halted rollout is not evaluated).
    await evaluateRollouts(rt);
    expect((await f.rollout()).revision).toBe(halted.revision);

    const mail = await rt.mailbox.waitFor((m) => m.to.includes(f.c.ownerEmail) && m.subject.startsWith('Rollout halted'), { since, timeoutMs: 30_000 });
    expect(mail.subject).toBe(`Rollout halted: ${f.line.fw} ${NEW_VERSION} on ${f.c.domain}`);
    expect(mail.text).toContain(`${failed.length} of ${failed.length} outcomes failed (100 %)`);
    expect(mail.text).toContain(`/console/firmware/${f.build.id}/rollout`);
    const audit = await waitForAudit(rt, f.c.domain, (e) => e.action === 'firmware.rollout.halt' && e.target_id === halted.id);
    expect(audit.after).toMatchObject({ state: 'halted', halt: { count: failed.length, outcomes: failed.length } });

    // The devices the stage did not reach are offered nothing now.
    const rest = f.hwids.filter((h) => !failed.some((d) => d.hwid === h));
    expect(await f.poll(rest)).toEqual(new Set());
  });

  it('halts when the devices that took the build go silent', async () => {
    const f = await fleetOf({ count: 10, prefix: 'ro-silent' });
    const started = await f.start({
      stages: [
        { percent: 40, min_devices: 0, hold_minutes: 60 },
        { percent: 100, hold_minutes: 60 },
      ],
      silent_after_minutes: 1,
      halt_rules: [{ outcome: 'silent', max_percent: 20, min_outcomes: 2 }],
    });
    const sim = await f.simulator(f.hwids, { silent: 1 });
    await sim.pollOnce();
    const silent = sim.devices().filter((d) => d.state === 'silent');
    expect(silent.length).toBe(started.stages[0].target_devices);
    await f.rolloutWhen((r) => r.outcomes.pending === silent.length, `${silent.length} offers recorded`);
    // They never check in again (pollOnce skips them). White-box: their offer and last check
    // are moved 10 minutes back rather than waiting out silent_after_minutes.
    await rt.query(`UPDATE registry.rollout_offer SET offered_at = offered_at - interval '10 minutes' WHERE rollout_id = $1`, [started.id]);
    await rt.query(
      `UPDATE registry.device d SET last_seen_at = d.last_seen_at - interval '10 minutes'
         FROM registry.rollout_offer o WHERE o.rollout_id = $1 AND d.customer_id = o.customer_id AND d.hwid = o.hwid`,
      [started.id],
    );
    expect((await f.rollout()).outcomes).toMatchObject({ silent: silent.length, pending: 0 });
    await evaluateRollouts(rt);
    expect(await f.rollout()).toMatchObject({
      state: 'halted',
      halt: { rule: { outcome: 'silent' }, count: silent.length, outcomes: silent.length },
    });
  });

  it('pauses, resumes, advances now and aborts; each repeated action answers 200 and a refused one 409', async () => {
    const f = await fleetOf({ count: 10, prefix: 'ro-steer' });
    await f.start({
      stages: [
        { percent: 20, min_devices: 0, hold_minutes: 60 },
        { percent: 60, hold_minutes: 60 },
        { percent: 100, hold_minutes: 60 },
      ],
      halt_rules: [],
    });
    const first = await f.poll(f.hwids);
    expect(first.size).toBeGreaterThanOrEqual(2);
    await f.rolloutWhen((r) => offered(r) === first.size, `${first.size} offered`);

    const paused = await f.steer('pause');
    expect(paused.status).toBe(200);
    expect(paused.json<{ state: string }>().state).toBe('paused');
    expect((await f.steer('pause')).json<{ state: string; revision: number }>()).toMatchObject({
      state: 'paused',
      revision: paused.json<{ revision: number }>().revision,
    });
    // Paused: the devices already reached are still offered it, nobody new; the evaluator leaves it.
    expect(await f.poll(f.hwids)).toEqual(first);
    await evaluateRollouts(rt);
    expect((await f.rollout()).state).toBe('paused');

    const resumed = await f.steer('resume');
    expect(resumed.json<{ state: string; current_stage: number }>()).toMatchObject({ state: 'running', current_stage: 0 });
    const advanced = await f.steer('advance');
    expect(advanced.status).toBe(200);
    expect(advanced.json<{ state: string; current_stage: number }>()).toMatchObject({ state: 'running', current_stage: 1 });
    const second = await f.poll(f.hwids);
    expect(second.size).toBeGreaterThan(first.size);
    await f.rolloutWhen((r) => offered(r) === second.size && r.stages[1].offered === second.size - first.size, 'stage 2 offered');

    const aborted = await f.steer('abort');
    expect(aborted.json<{ state: string }>().state).toBe('aborted');
    expect((await f.steer('abort')).status).toBe(200);
    expectProblem(await f.steer('resume'), 409, { code: 'rollout_transition_invalid' });
    expectProblem(await f.steer('pause'), 409, { code: 'rollout_transition_invalid' });
    expectProblem(await f.steer('advance'), 409, { code: 'rollout_transition_invalid' });
    // Aborted: offered to nobody new; the build is not a general release either.
    const after = await f.poll(f.hwids);
    for (const hwid of after) expect(second.has(hwid)).toBe(true);
    expect([...after].filter((h) => !first.has(h) && !second.has(h))).toEqual([]);
    await waitForAudit(rt, f.c.domain, (e) => e.action === 'firmware.rollout.abort' && e.actor !== 'system:rollout-evaluator');
  });

  it('a device never leaves its stage: every stage offers the build to the devices of the stages before it, each recorded with its first stage', async () => {
    const f = await fleetOf({ count: 30, prefix: 'ro-stay' });
    const percents = [10, 30, 60, 100];
    await f.start({ stages: percents.map((percent) => ({ percent, min_devices: 0, hold_minutes: 60 })), halt_rules: [] });
    const firstStage = new Map<string, number>();
    let before = new Set<string>();
    for (const [index] of percents.entries()) {
      if (index > 0) expect((await f.steer('advance')).json<{ current_stage: number }>().current_stage).toBe(index);
      const now = await f.poll(f.hwids);
      for (const hwid of before) expect(now.has(hwid)).toBe(true);
      expect(now.size).toBeGreaterThanOrEqual(before.size);
      for (const hwid of now) if (!firstStage.has(hwid)) firstStage.set(hwid, index);
      before = now;
      await f.rolloutWhen((r) => offered(r) === now.size, `${now.size} offered in stage ${index + 1}`);
      // Each device keeps the stage of its first offer, whatever stage the rollout is in now.
      expect(await f.offeredStages()).toEqual(firstStage);
    }
    expect(before.size).toBe(30);
  });
});
