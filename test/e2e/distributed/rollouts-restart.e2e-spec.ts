import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Rollout } from '@app/contracts';
import { eventually } from '../support/factories.js';
import { evaluateRollouts, offered, RolloutFleet } from '../support/rollouts.js';
import { startRuntime, waitForStatus, type Runtime } from '../support/runtime.js';
import { isAlive, readStackState, spawnApp, stopPid, writeStackState } from '../support/stack.js';

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

function startFirmware(): void {
  const state = readStackState(stateDir());
  const child = spawnApp('firmware', state.appEnv, state.logDir);
  child.unref(); // the global teardown stops it by pid
  state.pids.firmware = child.pid!;
  writeStackState(stateDir(), state);
}

/** What a restart must not change: the state, the stage, the cut, the revision and the offers. */
function standing(r: Rollout) {
  return { state: r.state, current_stage: r.current_stage, revision: r.revision, stages: r.stages.map((s) => [s.started_at, s.target_devices, s.offered]) };
}

/**
 * The firmware app (which evaluates rollouts and answers the update check) stopped and started
 * again mid-rollout (distributed runtime only, docs/api.md "Rollouts"): the rollout stands where
 * it stood, the same devices are offered the build, an evaluation after the restart changes
 * nothing, and the next stage starts from there.
 */
describe('a rollout across a restart of the firmware app (distributed)', () => {
  let rt: Runtime;
  let f: RolloutFleet;

  beforeAll(async () => {
    rt = await startRuntime();
    f = await RolloutFleet.create(rt, { count: 12, prefix: 'ro-restart' });
  });
  afterAll(async () => {
    const pid = readStackState(stateDir()).pids.firmware;
    if (!pid || !isAlive(pid)) startFirmware();
    await waitForStatus(rt.baseUrl, 'ok', 60_000).catch(() => undefined);
    await f?.stop();
    await rt?.stop();
  });

  it('changes nothing: same stage, same revision, same devices offered; the next stage follows', async () => {
    await f.start({
      stages: [
        { percent: 25, min_devices: 0, hold_minutes: 60 },
        { percent: 100, hold_minutes: 60 },
      ],
      halt_rules: [],
    });
    const reached = await f.poll(f.hwids);
    expect(reached.size).toBeGreaterThanOrEqual(3);
    const before = await f.rolloutWhen((r) => offered(r) === reached.size, `${reached.size} offered`);
    const stagesBefore = await f.offeredStages();

    const pid = readStackState(stateDir()).pids.firmware!;
    await stopPid(pid);
    expect(isAlive(pid)).toBe(false);
    startFirmware();
    await waitForStatus(rt.baseUrl, 'ok', 60_000);
    // The gateway may report ok before it notices the new process: wait until it answers.
    const answered = await eventually(
      () => rt.http.get(`/firmware/${f.build.id}/rollout`, { auth: f.c.readOnly }),
      (r) => r.status === 200,
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(answered.status).toBe(200);

    expect(standing(await f.rollout())).toEqual(standing(before));
    expect(await f.poll(f.hwids)).toEqual(reached);
    await evaluateRollouts(rt);
    expect(standing(await f.rollout())).toEqual(standing(before));

    const advanced = await f.steer('advance');
    expect(advanced.json<Rollout>()).toMatchObject({ state: 'running', current_stage: 1, revision: before.revision + 1 });
    const everyone = await f.poll(f.hwids);
    expect(everyone.size).toBe(12);
    await f.rolloutWhen((r) => offered(r) === 12, 'every device offered');
    const stagesAfter = await f.offeredStages();
    for (const [hwid, stage] of stagesBefore) expect(stagesAfter.get(hwid)).toBe(stage);
    expect([...stagesAfter.values()].filter((s) => s === 1)).toHaveLength(12 - reached.size);
  });
});
