import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configureLogging, type LogLevel } from '@app/infra';
import { extractCode } from '@app/testing';
import { expectStatus, randomPerson, requestMagicLink, sessionFrom } from './support/auth.js';
import type { DistributedApp } from './support/constants.js';
import type { Session } from './support/http.js';
import { startRuntime, waitForStatus, type Runtime } from './support/runtime.js';
import { readStackState, spawnApp, stopPid, writeStackState } from './support/stack.js';

/**
 * docs/operations.md "Logs": no log line of the service holds a secret. Logins by code and by
 * link, an invitation, an API token and a session renewal run with every app logging at debug;
 * then every login code, link, link token, API token and session cookie of the run is looked
 * for in what the service logged: standalone, the lines of the process (its logging sink);
 * distributed, the log files of the app processes.
 */

/** The apps these flows pass through: restarted at debug level (distributed) for this file. */
const LOGGING_APPS: readonly DistributedApp[] = ['gateway', 'identity', 'worker', 'admin'];

interface LogCapture {
  lines(): Promise<string[]>;
  stop(): Promise<void>;
}

/** Standalone: the service runs in this process; its loggers write to a sink of ours. */
function captureInProcess(): LogCapture {
  const lines: string[] = [];
  configureLogging({ level: 'debug', sink: (line) => lines.push(line) });
  return {
    lines: async () => [...lines],
    stop: async () => configureLogging({ level: (process.env.LOG_LEVEL as LogLevel | undefined) ?? 'warn', sink: (line) => process.stdout.write(line + '\n') }),
  };
}

/** Distributed: the apps restarted with LOG_LEVEL=debug; their log files read from here on; restarted as they were at the end. */
async function captureProcesses(baseUrl: string): Promise<LogCapture> {
  const stateDir = process.env.E2E_STATE_DIR!;
  const restart = async (level: string | undefined) => {
    const state = readStackState(stateDir);
    for (const app of LOGGING_APPS) {
      if (state.pids[app]) await stopPid(state.pids[app]);
      const child = spawnApp(app, { ...state.appEnv, ...(level ? { LOG_LEVEL: level } : {}) }, state.logDir);
      child.unref(); // the global teardown stops it by pid
      state.pids[app] = child.pid!;
    }
    writeStackState(stateDir, state);
    await waitForStatus(baseUrl, 'ok', 60_000);
  };
  await restart('debug');
  const logDir = process.env.E2E_LOG_DIR!;
  const files = (await readdir(logDir)).filter((name) => name.endsWith('.log'));
  const offsets = new Map(await Promise.all(files.map(async (name) => [name, (await stat(join(logDir, name))).size] as const)));
  return {
    async lines() {
      const texts = await Promise.all(files.map(async (name) => (await readFile(join(logDir, name))).subarray(offsets.get(name)).toString('utf8')));
      return texts.flatMap((text) => text.split('\n')).filter(Boolean);
    },
    stop: () => restart(undefined),
  };
}

describe('secrets in the logs', () => {
  let rt: Runtime;
  let capture: LogCapture;
  const started = Date.now();
  const people: string[] = [];
  /** Secrets handed out other than by mail (API tokens, session cookies, CSRF tokens). */
  const handedOut: string[] = [];

  const keep = (session: Session) => {
    handedOut.push(session.csrfToken, ...session.cookies.values());
    return session;
  };

  beforeAll(async () => {
    const runtime = process.env.E2E_RUNTIME;
    if (runtime === 'standalone') capture = captureInProcess();
    rt = await startRuntime();
    if (runtime === 'distributed') capture = await captureProcesses(rt.baseUrl);
  }, 180_000);
  afterAll(async () => {
    await capture?.stop();
    await rt?.stop();
  }, 180_000);

  it('logs no login code, login link, token or session cookie', async () => {
    // An invitation, then the invited person logs in with the code (loginAs reads it from the mail).
    const owner = keep((await rt.newCustomer({ tokens: false })).owner);
    people.push(owner.email);
    const invited = randomPerson(owner.email.split('@')[1]);
    people.push(invited);
    expectStatus(await rt.http.post('/members', { auth: owner, json: { email: invited, role: 'editor' } }), 201);
    const member = keep(await rt.loginAs(invited));

    // A login by the mailed link.
    const { c, t } = await requestMagicLink(rt, invited);
    const linked = expectStatus(await rt.http.post('/auth/magic', { query: { c, t } }), 303);
    keep(sessionFrom(invited, linked, member.identity));

    // A session renewal and an API token.
    expectStatus(await rt.http.post('/auth/refresh', { auth: member }), 200);
    keep(member); // its renewed cookies
    const token = expectStatus(await rt.http.post('/tokens', { auth: member, json: { name: 'logs check', bundle: 'read-only' } }), 201);
    handedOut.push(token.json<{ token: string }>().token);

    // What the mails carried: the codes, the links and their tokens.
    const mails = (await Promise.all(people.map((email) => rt.mailbox.to(email, started)))).flat();
    expect(mails.length).toBeGreaterThanOrEqual(5); // two invitations, three logins
    const codes = [...new Set(mails.flatMap((m) => [extractCode(m.subject), extractCode(m.text)]).filter((code): code is string => code !== null))];
    const links = [...new Set(mails.flatMap((m) => m.text.match(/https?:\/\/\S+\/auth\/magic\?\S+/g) ?? []))];
    expect(codes.length).toBeGreaterThanOrEqual(3);
    expect(links.length).toBeGreaterThanOrEqual(3);
    const linkTokens = links.map((link) => new URL(link).searchParams.get('t')!);

    // The service logged the mails (so this looks at lines that were written), and none of them holds a secret.
    let lines: string[] = [];
    const deadline = Date.now() + 15_000;
    for (;;) {
      lines = await capture.lines();
      const mailLines = lines.filter((line) => /"msg":"mail (sent|written to)/.test(line));
      if (mailLines.length >= mails.length || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(lines.filter((line) => /"msg":"mail (sent|written to)/.test(line)).length).toBeGreaterThanOrEqual(mails.length);
    const secrets = [...codes, ...links, ...linkTokens, ...handedOut].filter((secret) => secret.length >= 6);
    const leaks = secrets.flatMap((secret) => {
      const found = new RegExp(`(?<![0-9A-Za-z])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`);
      return lines.flatMap((line) => {
        const at = found.exec(line)?.index;
        return at === undefined ? [] : [{ secret: `${secret.slice(0, 12)}…`, where: line.slice(Math.max(0, at - 160), at + 20) }];
      });
    });
    expect(leaks).toEqual([]);
  });
});
