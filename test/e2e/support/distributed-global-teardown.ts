// Must stay the first import: lets this CommonJS-loaded file resolve `.js` and `@app/*` like jest does.
import './resolve-hook.cjs';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DistributedHandles } from './distributed-global-setup.js';
import { readStackState, releaseRedisDatabase, stateFile, stopPid, dropDatabase } from './stack.js';

/**
 * Stops what distributed-global-setup.ts started: the app processes (SIGTERM, then SIGKILL;
 * including any a test restarted, whose pids are in the state file), NATS, the SMTP sink and
 * s3rver; drops the database and flushes the Redis database. The app logs stay in
 * E2E_LOG_DIR unless E2E_KEEP_LOGS=0.
 */
export default async function distributedGlobalTeardown(): Promise<void> {
  const handles = (globalThis as { __E2E_DISTRIBUTED__?: DistributedHandles }).__E2E_DISTRIBUTED__;
  if (!handles) return;
  (globalThis as { __E2E_DISTRIBUTED__?: DistributedHandles }).__E2E_DISTRIBUTED__ = undefined;
  const errors: unknown[] = [];
  const attempt = async (what: () => Promise<unknown>) => {
    try {
      await what();
    } catch (err) {
      errors.push(err);
    }
  };

  const pids = new Set<number>();
  const natsPids = new Set<number>();
  for (const child of handles.apps.values()) if (child.pid) pids.add(child.pid);
  if (existsSync(stateFile(handles.stateDir))) {
    const state = readStackState(handles.stateDir);
    for (const pid of Object.values(state.pids)) if (pid) pids.add(pid);
    if (state.nats?.pid && state.nats.pid !== handles.nats?.pid) natsPids.add(state.nats.pid); // restarted by a test
  }
  await Promise.all([...pids].map((pid) => attempt(() => stopPid(pid))));
  if (handles.nats?.pid) natsPids.add(handles.nats.pid);
  for (const pid of natsPids) await attempt(() => stopPid(pid));
  if (handles.mail) await attempt(() => handles.mail!.close());
  if (handles.s3) await attempt(() => handles.s3!.close());
  if (handles.backupS3) await attempt(() => handles.backupS3!.close());
  if (handles.database) await attempt(() => dropDatabase(handles.database!.name));
  if (handles.redis) await attempt(() => releaseRedisDatabase(handles.redis!.db, handles.runId));

  // Keep only the app logs (their directory was printed at start); the rest holds credentials and data.
  for (const entry of ['nats', 'data', 'mail', 'stack.json', 'admin-credentials.json']) rmSync(join(handles.stateDir, entry), { recursive: true, force: true });
  if (process.env.E2E_KEEP_LOGS === '0') rmSync(handles.stateDir, { recursive: true, force: true });
  if (errors.length) throw new AggregateError(errors, 'e2e-distributed teardown failed');
}
