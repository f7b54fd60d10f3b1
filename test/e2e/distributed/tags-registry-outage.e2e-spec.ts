import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, letters } from '../support/factories.js';
import { clientAddress, createBuild, createDevice, type FirmwareBuild, productLine, updateCheckPath, type UpdateItem } from '../support/firmware.js';
import { startRuntime, waitForStatus, type CustomerFixture, type Runtime } from '../support/runtime.js';
import { isAlive, readStackState, spawnApp, stopPid, writeStackState } from '../support/stack.js';

/**
 * The registry down (distributed runtime only): tag renames and deletes still change the
 * builds at once and answer 202 `pending`; once the registry is back, the queued changes reach
 * the devices, in order. The update check keeps answering (general releases) meanwhile.
 */

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

function startRegistry(): void {
  const state = readStackState(stateDir());
  const child = spawnApp('registry', state.appEnv, state.logDir);
  child.unref(); // the global teardown stops it by pid
  state.pids.registry = child.pid!;
  writeStackState(stateDir(), state);
}

describe('tag changes while the registry is down (distributed)', () => {
  let rt: Runtime;
  let c: CustomerFixture;
  const line = productLine();
  const renamed = `ren-${letters(6)}`;
  const deleted = `del-${letters(6)}`;
  let build: FirmwareBuild;

  const deviceTags = async (hwid: string) => (await rt.http.get(`/devices/${hwid}/tags`, { auth: c.readOnly })).json<{ tags: string[] }>().tags;

  beforeAll(async () => {
    rt = await startRuntime();
    c = await rt.newCustomer();
    build = await createBuild(rt, c.uploader, line, '1.0', { general: true, tags: [renamed, deleted] });
    await createDevice(rt, c.full, 'outage-1', [renamed, deleted, 'keep']);
    await createDevice(rt, c.full, 'outage-2', [`${renamed}-new`]);
    const pid = readStackState(stateDir()).pids.registry!;
    await stopPid(pid);
    expect(isAlive(pid)).toBe(false);
  });

  afterAll(async () => {
    const pid = readStackState(stateDir()).pids.registry;
    if (!pid || !isAlive(pid)) startRegistry();
    await waitForStatus(rt.baseUrl, 'ok', 60_000).catch(() => undefined);
    await rt?.stop();
  });

  it('rename and delete change the builds and answer 202 pending; the tag list is 503 without the registry', async () => {
    const rename = await rt.http.post(`/tags/${renamed}/rename`, { auth: c.full, json: { to: `${renamed}-new` } });
    expect(rename.status).toBe(202);
    expect(rename.json()).toEqual({ tag: `${renamed}-new`, firmware: 1, devices: null, pending: true });
    const remove = await rt.http.delete(`/tags/${deleted}`, { auth: c.full });
    expect(remove.status).toBe(202);
    expect(remove.json()).toEqual({ tag: deleted, firmware: 0, devices: null, pending: true });
    expect((await rt.http.get(`/firmware/${build.id}`, { auth: c.readOnly })).json<FirmwareBuild>().tags).toEqual([`${renamed}-new`]);
    const list = await rt.http.get('/tags', { auth: c.readOnly });
    expect(list.status).toBe(503);
  });

  it('the update check still answers (as for an unknown device)', async () => {
    const reply = await rt.http.get(updateCheckPath(c.domain, line, '0', 'outage-1'), { localAddress: clientAddress() });
    expect(reply.status).toBe(200);
    expect(reply.json<UpdateItem[]>().map((i) => i.fw_version)).toEqual(['1.0']);
  });

  it('once the registry is back, the devices get both changes, in order, without another request', async () => {
    startRegistry();
    await waitForStatus(rt.baseUrl, 'ok', 60_000);
    const tags = await eventually(
      () => deviceTags('outage-1'),
      (t) => !t.includes(renamed) && !t.includes(deleted),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(tags).toEqual(['keep', `${renamed}-new`]);
    expect(await deviceTags('outage-2')).toEqual([`${renamed}-new`]);
    const counts = (await rt.http.get('/tags', { auth: c.readOnly })).json<{ items: { tag: string; firmware: number; devices: number }[] }>().items;
    expect(counts).toEqual([
      { tag: 'keep', firmware: 0, devices: 1 },
      { tag: `${renamed}-new`, firmware: 1, devices: 2 },
    ]);
  });
});
