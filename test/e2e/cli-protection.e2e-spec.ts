import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { expectStatus, waitForAudit } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { runCli } from './support/cli.js';
import { eventually } from './support/factories.js';
import type { HttpReply } from './support/http.js';
import { type CustomerFixture, type Runtime, startRuntime } from './support/runtime.js';
import { freePort } from './support/stack.js';

/**
 * The operator CLI's `maintenance` and `ip-blocks` commands (docs/operations.md "Operator
 * CLI"), run as built (dist/apps/cli/src/main.js): through the admin API with the token from a
 * file or FDS_ADMIN_TOKEN, and on the database itself (--direct, or when the service cannot be
 * used from here), audited as operator:cli:<user> and applied by the running gateways.
 */

/** Gateways apply a change within 2 s; the tests allow load on top. */
const PROPAGATION_MS = 5_000;
const CLI_ACTOR = `operator:cli:${userInfo().username}`;

/** A loopback address of this test's own, never 127.0.0.1 (the other requests' address). */
function ownAddress(): string {
  return `127.0.0.${140 + randomInt(100)}`;
}

async function until(probe: () => Promise<HttpReply>, accept: (r: HttpReply) => boolean): Promise<HttpReply> {
  const reply = await eventually(probe, accept, { timeoutMs: PROPAGATION_MS, intervalMs: 100 });
  if (!accept(reply)) throw new Error(`not within ${PROPAGATION_MS} ms: ${reply.describe()}`);
  return reply;
}

describe('operator CLI: maintenance and IP blocks', () => {
  let rt: Runtime;
  let admin: string;
  let dir: string;
  let tokenFile: string;
  let c: CustomerFixture;
  let blocked: string[] = [];

  const block = async (cidr: string, reason: string) =>
    expectStatus(await rt.http.post('/admin/ip-blocks', { auth: admin, json: { cidr, reason } }), 201).json<{ cidr: string }>().cidr;
  const maintenance = async (enabled: boolean) => expectStatus(await rt.http.put('/admin/settings/maintenance', { auth: admin, json: { enabled } }), 200);
  const write = () => rt.http.put(`/logdata/${randomBytes(64).toString('hex')}`, { auth: c.uploader, body: 'a log line', acceptJson: true });

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    c = await rt.newCustomer();
    dir = await mkdtemp(join(tmpdir(), 'fds-e2e-cli-'));
    tokenFile = join(dir, 'admin-token');
    await writeFile(tokenFile, `${admin}\n`, { mode: 0o600 });
  });
  afterEach(async () => {
    await maintenance(false);
    for (const cidr of blocked) await rt.http.delete('/admin/ip-blocks', { auth: admin, query: { cidr } });
    blocked = [];
  });
  afterAll(async () => {
    await rt?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists and lifts a block and switches maintenance through the admin API, with the token from --token-file or FDS_ADMIN_TOKEN', async () => {
    const address = ownAddress();
    const cidr = await block(address, 'cli test');
    blocked.push(cidr);
    const withFile = ['--token-file', tokenFile];
    const withVariable = { ...rt.cliEnv, FDS_ADMIN_TOKEN: admin };

    const listed = await runCli(['ip-blocks', 'list', '--json', ...withFile], rt.cliEnv);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const list = JSON.parse(listed.stdout) as { items: { cidr: string; reason: string | null }[]; via: string };
    expect(list.via).toBe('http');
    expect(list.items).toContainEqual(expect.objectContaining({ cidr, reason: 'cli test' }));

    const on = await runCli(['maintenance', 'on', '--message=back at noon', '--json'], withVariable);
    expect(on.code).toBe(0);
    expect(JSON.parse(on.stdout)).toEqual({ enabled: true, message: 'back at noon', via: 'http' });
    expectProblem(await until(write, (r) => r.status === 503), 503, 'back at noon');
    const status = await runCli(['maintenance', 'status'], withVariable);
    expect(status).toMatchObject({ code: 0, stdout: 'maintenance on: back at noon\n' });
    const off = await runCli(['maintenance', 'off', `--token-file=${tokenFile}`], rt.cliEnv);
    expect(off).toMatchObject({ code: 0, stdout: 'maintenance off\n' });
    expectStatus(await until(write, (r) => r.status === 201), 201);

    await until(
      () => rt.http.get('/status', { localAddress: address }),
      (r) => r.status === 403,
    );
    const lifted = await runCli(['ip-blocks', 'lift', address, '--json', ...withFile], rt.cliEnv);
    expect(lifted).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(lifted.stdout)).toEqual({ cidr, lifted: true, via: 'http' });
    await until(
      () => rt.http.get('/status', { localAddress: address }),
      (r) => r.status === 200,
    );
    const again = await runCli(['ip-blocks', 'lift', address, ...withFile], rt.cliEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`404 no IP block for ${cidr}`);

    const deleted = await waitForAudit(rt, undefined, (e) => e.action === 'ip_block.delete' && e.target_id === cidr);
    expect(deleted.actor).toMatch(/^admin:token:/);
  });

  it('never takes the admin token on the command line, and refuses a wrong one', async () => {
    for (const args of [
      ['ip-blocks', 'list', '--token', admin],
      ['maintenance', 'off', `--token=${admin}`],
    ]) {
      const refused = await runCli(args, rt.cliEnv);
      expect(refused).toMatchObject({ code: 2, stdout: '' });
      expect(refused.stderr).toContain('--token-file <path> or the FDS_ADMIN_TOKEN variable');
      expect(refused.stderr).not.toContain(admin);
    }
    const wrong = await runCli(['maintenance', 'status'], { ...rt.cliEnv, FDS_ADMIN_TOKEN: 'not-a-token' });
    expect(wrong).toMatchObject({ code: 1, stdout: '' });
    expect(wrong.stderr).toMatch(/GET \/admin\/settings\/maintenance was refused: 401/);
  });

  if (process.env.E2E_RUNTIME === 'distributed') {
    it('works on the database itself (--direct, or when the service cannot be reached): lists and lifts a block, ends maintenance, audited as operator:cli:<user>; the gateways apply it', async () => {
      const address = ownAddress();
      const cidr = await block(address, 'direct test');
      blocked.push(cidr);
      await maintenance(true);
      await until(
        () => rt.http.get('/status', { localAddress: address }),
        (r) => r.status === 403,
      );

      const listed = await runCli(['ip-blocks', 'list', '--direct', '--json'], rt.cliEnv);
      expect(listed.code).toBe(0);
      const list = JSON.parse(listed.stdout) as { items: { cidr: string; reason: string | null }[]; via: string };
      expect(list).toMatchObject({ via: 'database' });
      expect(list.items).toContainEqual(expect.objectContaining({ cidr, reason: 'direct test' }));
      const status = await runCli(['maintenance', 'status', '--direct', '--json'], rt.cliEnv);
      expect(JSON.parse(status.stdout)).toMatchObject({ enabled: true, via: 'database' });

      const lifted = await runCli(['ip-blocks', 'lift', `${address}/32`, '--direct'], rt.cliEnv);
      expect(lifted).toMatchObject({ code: 0, stdout: `lifted the block of ${cidr}\n` });
      expect(lifted.stderr).toContain('applies it within about 2 s');
      await until(
        () => rt.http.get('/status', { localAddress: address }),
        (r) => r.status === 200,
      );

      // An admin token, but nothing listens at that address: the database instead.
      const nowhere = `http://127.0.0.1:${await freePort()}`;
      const off = await runCli(['maintenance', 'off', '--json', '--url', nowhere], { ...rt.cliEnv, FDS_ADMIN_TOKEN: admin });
      expect(off.code).toBe(0);
      expect(off.stderr).toContain(`${nowhere} cannot be reached (ECONNREFUSED)`);
      expect(off.stderr).toContain('working on the database instead');
      expect(JSON.parse(off.stdout)).toMatchObject({ enabled: false, via: 'database' });
      expectStatus(await until(write, (r) => r.status === 201), 201);

      const deleted = await waitForAudit(rt, undefined, (e) => e.action === 'ip_block.delete' && e.target_id === cidr);
      expect(deleted).toMatchObject({ actor: CLI_ACTOR, domain: null, before: { cidr, reason: 'direct test' }, after: {} });
      const ended = await waitForAudit(rt, undefined, (e) => e.action === 'maintenance.update' && e.actor === CLI_ACTOR && e.after.enabled === false);
      expect(ended).toMatchObject({ before: { enabled: true }, after: { enabled: false } });
      const [setting] = await rt.query<{ updated_by: string }>('SELECT updated_by FROM admin.maintenance_setting WHERE id = 1');
      expect(setting.updated_by).toBe(CLI_ACTOR);
    });

    it("falls back to the database when the service refuses this machine's own address", async () => {
      // The CLI reaches the gateway from ::1 here; the test's other requests come from 127.0.0.1.
      const cidr = await block('::1', 'locked out');
      blocked.push(cidr);
      const viaIpv6 = rt.baseUrl.replace('127.0.0.1', '[::1]');
      const locked = await eventually(
        () => fetch(`${viaIpv6}/status`).then((r) => r.status),
        (s) => s === 403,
        { timeoutMs: PROPAGATION_MS },
      );
      expect(locked).toBe(403);
      const lifted = await runCli(['ip-blocks', 'lift', '::1', '--json', '--url', viaIpv6, '--token-file', tokenFile], rt.cliEnv);
      expect(lifted.code).toBe(0);
      expect(lifted.stderr).toContain("refuses this machine's address (address blocked): working on the database instead");
      expect(JSON.parse(lifted.stdout)).toEqual({ cidr, lifted: true, via: 'database' });
      const open = await eventually(
        () => fetch(`${viaIpv6}/status`).then((r) => r.status),
        (s) => s === 200,
        { timeoutMs: PROPAGATION_MS },
      );
      expect(open).toBe(200);
    });
  } else {
    it("does not open the running server's embedded database, and says to go through the admin API", async () => {
      for (const [args, env] of [
        [['maintenance', 'off', '--direct'], rt.cliEnv],
        [['ip-blocks', 'list'], rt.cliEnv],
        [['ip-blocks', 'lift', '203.0.113.9', '--url', `http://127.0.0.1:${await freePort()}`], { ...rt.cliEnv, FDS_ADMIN_TOKEN: admin }],
      ] as const) {
        const refused = await runCli(args, env);
        expect(refused).toMatchObject({ code: 3, stdout: '' });
        expect(refused.stderr).toMatch(/Another process \(pid \d+\) is using DATA_DIR .*: stop it first/);
        expect(refused.stderr).toContain('go through its admin API: --token-file <path> or FDS_ADMIN_TOKEN');
      }
    });
  }
});
