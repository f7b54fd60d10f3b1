import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '../support/factories.js';
import { clientAddress, createBuild, createDevice, productLine, updateCheckPath, type UpdateItem } from '../support/firmware.js';
import { startRuntime, waitForStatus, type CustomerFixture, type Runtime } from '../support/runtime.js';
import { isAlive, readStackState, ROOT, spawnApp, stopPid, writeStackState } from '../support/stack.js';

/**
 * The update check as its own deployment (distributed runtime only): a firmware process
 * started with --role=update-check answers update checks alone while the full firmware app is
 * stopped; everything else of the firmware app is then unavailable.
 */

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

describe('firmware --role=update-check (distributed)', () => {
  let rt: Runtime;
  let c: CustomerFixture;
  let role: ChildProcess;
  const line = productLine();

  beforeAll(async () => {
    rt = await startRuntime();
    c = await rt.newCustomer();
    await createBuild(rt, c.uploader, line, '1.0', { general: true });
    await createBuild(rt, c.uploader, line, '1.1', { tags: ['pilot'] });
    await createDevice(rt, c.full, 'role-dev', ['pilot']);
    const state = readStackState(stateDir());
    const out = openSync(join(state.logDir, 'firmware-update-check.log'), 'a');
    role = spawn(process.execPath, ['--enable-source-maps', join(ROOT, 'dist/apps/firmware/src/main.js'), '--role=update-check'], {
      cwd: ROOT,
      env: state.appEnv,
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // connected to NATS and the database
    expect(role.exitCode).toBeNull();
    await stopPid(state.pids.firmware!);
  });

  afterAll(async () => {
    const state = readStackState(stateDir());
    if (!state.pids.firmware || !isAlive(state.pids.firmware)) {
      const child = spawnApp('firmware', state.appEnv, state.logDir);
      child.unref();
      state.pids.firmware = child.pid!;
      writeStackState(stateDir(), state);
    }
    if (role?.pid) await stopPid(role.pid);
    await waitForStatus(rt.baseUrl, 'ok', 60_000).catch(() => undefined);
    await rt?.stop();
  });

  it('answers update checks (builds, device tags, 304) with the full firmware app stopped', async () => {
    const path = updateCheckPath(c.domain, line, '0.9', 'role-dev');
    const reply = await eventually(
      () => rt.http.get(path, { localAddress: clientAddress() }),
      (r) => r.status === 200,
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(reply.json<UpdateItem[]>().map((i) => i.fw_version)).toEqual(['1.0', '1.1']);
    expect((await rt.http.get(path, { localAddress: clientAddress(), headers: { 'If-None-Match': reply.header('etag')! } })).status).toBe(304);
  });

  it('serves nothing else: the other firmware endpoints answer 503', async () => {
    const list = await rt.http.get('/firmware', { auth: c.readOnly });
    expect(list.status).toBe(503);
    expect(list.json().detail).toBe('firmware unavailable');
  });

  it('the full app back, both answer: the process of the role keeps its share', async () => {
    const state = readStackState(stateDir());
    const child = spawnApp('firmware', state.appEnv, state.logDir);
    child.unref();
    state.pids.firmware = child.pid!;
    writeStackState(stateDir(), state);
    const list = await eventually(
      () => rt.http.get('/firmware', { auth: c.readOnly }),
      (r) => r.status === 200,
      { timeoutMs: 30_000, intervalMs: 300 },
    );
    expect(list.json().items).toHaveLength(2);
    for (let i = 0; i < 10; i++) {
      expect((await rt.http.get(updateCheckPath(c.domain, line, '0.9'), { localAddress: clientAddress() })).status).toBe(200);
    }
    expect(isAlive(role.pid!)).toBe(true);
  });
});
