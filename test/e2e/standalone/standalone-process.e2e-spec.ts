import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { closeDatabases, loadConfig, openAppDatabase } from '@app/infra';
import { OPERATOR_ADMIN_EMAIL, OPERATOR_DOMAIN } from '../support/constants.js';
import { freePort } from '../support/stack.js';

// A standalone service as its own process (`npm start`), then the operator CLI on the data
// directory it left (`npm run -s cli`, the documented invocation). The tests run in order:
// the second uses the operator member the first service run created.
const STARTUP_MS = 200_000;

interface LogLine {
  readonly app?: string;
  readonly msg?: string;
  readonly context?: string;
  readonly level?: string;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `node dist/apps/standalone/src/main.js` with `env`: its JSON log lines, and when it is ready. */
function startService(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--enable-source-maps', join(process.cwd(), 'dist/apps/standalone/src/main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = exited(child);
  const lines: LogLine[] = [];
  let buffered = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const complete = buffered.split('\n');
      buffered = complete.pop() ?? '';
      for (const text of complete) {
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        if (line.app === 'standalone' && line.msg === 'ready') resolve();
      }
    });
    void exit.then(({ code }) => reject(new Error(`the service exited (${code}) before it was ready`)));
  });
  ready.catch(() => undefined); // a test that stops the service while it starts does not wait for it
  return { child, exit, lines, ready };
}

describe('standalone process and the operator CLI on its data directory', () => {
  let dataDir: string;
  let port: number;
  let env: NodeJS.ProcessEnv;
  let service: ChildProcess | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fds-e2e-process-'));
    port = await freePort();
    // No PUBLIC_URL (the CLI warns about it) and no LOG_LEVEL (info lines are written).
    env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: String(port), OPERATOR_DOMAIN, OPERATOR_ADMIN_EMAIL };
  });
  afterAll(async () => {
    // A failed expectation leaves the service running: end it (its lock file then stays).
    if (service && service.exitCode === null && service.signalCode === null) service.kill('SIGKILL');
    await closeDatabases();
    await rm(dataDir, { recursive: true, force: true });
  });

  it(
    "labels each app's start-up lines with that app, and leaves no service.lock after SIGTERM",
    async () => {
      const { child, exit, lines, ready } = startService(env);
      service = child;
      await ready;
      expect(existsSync(join(dataDir, 'service.lock'))).toBe(true);

      const apps = ['firmware', 'logdata', 'registry', 'identity', 'admin', 'worker', 'gateway'];
      const starting = lines.filter((l) => l.context === 'NestFactory' && l.msg === 'Starting Nest application...').map((l) => l.app);
      expect([...starting].sort()).toEqual([...apps].sort());
      for (const app of apps) {
        const moduleName = `${app[0].toUpperCase()}${app.slice(1)}Module dependencies initialized`;
        expect(lines.filter((l) => l.context === 'InstanceLoader' && l.msg === moduleName).map((l) => l.app)).toEqual([app]);
      }

      child.kill('SIGTERM');
      expect(await exit).toEqual({ code: 0, signal: null });
      expect(existsSync(join(dataDir, 'service.lock'))).toBe(false);
    },
    STARTUP_MS,
  );

  it(
    'token create prints only the token on stdout, warns that PUBLIC_URL is unset, and its audit entry reaches the audit log when the service runs',
    async () => {
      const result = await run('npm', ['run', '-s', 'cli', '--', 'token', 'create', '--customer', OPERATOR_DOMAIN, '--email', OPERATOR_ADMIN_EMAIL], env);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
      expect(result.stderr).toContain(`warning: PUBLIC_URL is not set, so the token is issued for http://localhost:${port} (the default)`);
      const tokenId = /^token (\S+) for /m.exec(result.stderr)?.[1];
      expect(tokenId).toBeDefined();
      expect(existsSync(join(dataDir, 'service.lock'))).toBe(false);

      // The entry waits in the identity outbox (no service running to relay it)...
      const identity = await openAppDatabase(loadConfig(env), { schema: 'identity', entities: [], migrations: [], migrate: false });
      try {
        const rows = (await identity.query(`SELECT payload FROM identity.outbox WHERE kind = 'audit'`)) as Array<{ payload: string }>;
        const waiting = rows.map((r) => JSON.parse(r.payload) as { action: string; target_id: string });
        expect(waiting.filter((e) => e.action === 'token.create' && e.target_id === tokenId)).toHaveLength(1);
      } finally {
        await identity.destroy();
      }
      await closeDatabases();

      // ... and the service relays it to the admin app when it next runs.
      const started = startService(env);
      service = started.child;
      await started.ready;
      await new Promise((resolve) => setTimeout(resolve, 4_000)); // the relay's first attempts (retried after 0.5 s, 1 s, ...)
      started.child.kill('SIGTERM');
      expect(await started.exit).toEqual({ code: 0, signal: null });

      const admin = await openAppDatabase(loadConfig(env), { schema: 'admin', entities: [], migrations: [], migrate: false });
      try {
        const rows = (await admin.query('SELECT actor, domain, target_type, target_id FROM admin.audit_log WHERE action = $1', ['token.create'])) as unknown[];
        expect(rows).toEqual([expect.objectContaining({ domain: OPERATOR_DOMAIN, target_type: 'token', target_id: tokenId })]);
        const pending = (await admin.query(`SELECT count(*)::int AS n FROM identity.outbox`)) as Array<{ n: number }>;
        expect(pending).toEqual([{ n: 0 }]);
      } finally {
        await admin.destroy();
      }
    },
    STARTUP_MS,
  );

  it(
    'a SIGTERM while it is still starting stops it as soon as it has started: exit code 0, no service.lock',
    async () => {
      await closeDatabases(); // the previous test's look into the data directory holds its lock
      const { child, exit, lines } = startService(env);
      service = child;
      // The first app's first line: the process is up, the lock taken, the apps not yet started.
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (lines.length > 0) {
            clearInterval(poll);
            resolve();
          }
        }, 5);
      });
      child.kill('SIGTERM');
      const exitStatus = await exit;
      expect({ ...exitStatus, errors: lines.filter((l) => l.level === 'error') }).toEqual({ code: 0, signal: null, errors: [] });
      expect(lines.filter((l) => l.msg === 'stopping').map((l) => l.app)).toEqual(['standalone']);
      expect(existsSync(join(dataDir, 'service.lock'))).toBe(false);
    },
    STARTUP_MS,
  );
});
