import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { customerWithOwner, expectStatus, readOnlyAdministrator } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import type { Session } from './support/http.js';
import { startRuntime, type Runtime } from './support/runtime.js';
import { RFC3339 } from './support/formats.js';

/**
 * GET /admin/jobs (docs/api.md "Background jobs"): the jobs of whichever job runtime runs
 * (the in-process runner standalone, BullMQ distributed), scheduled work among them.
 */

interface JobBody {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  slot: string;
  status: string;
  run_at: string | null;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

const SCHEDULED = ['security-detectors', 'health-rollup', 'request-log-retention', 'staging-cleanup'];

describe('admin: background jobs', () => {
  let rt: Runtime;
  let admin: string;
  let readOnly: Session;
  let a: Awaited<ReturnType<typeof customerWithOwner>>;

  beforeAll(async () => {
    rt = await startRuntime();
    admin = await rt.adminToken();
    a = await customerWithOwner(rt);
    readOnly = await readOnlyAdministrator(rt, admin);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  const listJobs = async (query: Record<string, string | number> = {}) =>
    expectStatus(await rt.http.get('/admin/jobs', { auth: admin, query }), 200).json<{ items: JobBody[] }>().items;

  it('lists the scheduled work as named jobs with every field, newest first', async () => {
    let items: JobBody[] = [];
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      items = await listJobs({ limit: 1000 });
      if (SCHEDULED.every((kind) => items.some((j) => j.kind === kind && j.status === 'succeeded'))) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const kind of SCHEDULED) {
      const job = items.find((j) => j.kind === kind && j.status === 'succeeded');
      expect(job).toEqual({
        id: expect.any(String),
        kind,
        payload: {},
        slot: `schedule:${kind}`,
        status: 'succeeded',
        run_at: expect.stringMatching(RFC3339),
        attempts: 1,
        max_attempts: 5,
        last_error: null,
        created_at: expect.stringMatching(RFC3339),
        finished_at: expect.stringMatching(RFC3339),
      });
    }
    const created = items.map((j) => j.created_at);
    expect(created).toEqual([...created].sort().reverse());
  });

  it('never shows a mail subject or body (login codes, magic links)', async () => {
    const since = Date.now();
    const before = new Date(since).toISOString();
    expectStatus(await rt.http.post('/auth/login', { json: { email: a.ownerEmail } }), 202);
    const code = await rt.mailbox.waitForCode(a.ownerEmail, { since });
    let mails: JobBody[] = [];
    const deadline = Date.now() + 10_000;
    while (!mails.length && Date.now() < deadline) {
      mails = (await listJobs({ limit: 1000 })).filter((j) => j.kind === 'email' && j.payload.to === a.ownerEmail && j.created_at >= before);
      if (!mails.length) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(mails).toHaveLength(1);
    expect(mails[0].payload).toMatchObject({ to: a.ownerEmail, subject: '[redacted]', text: '[redacted]', kind: 'login' });
    expect(JSON.stringify(mails[0])).not.toContain(code);
    expect(mails[0].slot).toMatch(/^login:/);
    expect(JSON.stringify(mails[0].payload)).not.toMatch(/traceparent|_trace/);
  });

  it('honours limit (1 to 1000, default 100) and is for administrators only', async () => {
    expect(await listJobs({ limit: 1 })).toHaveLength(1);
    expect((await listJobs()).length).toBeLessThanOrEqual(100);
    expectProblem(await rt.http.get('/admin/jobs', { auth: admin, query: { limit: 0 } }), 400, 'limit must be an integer from 1 to 1000');
    expectProblem(await rt.http.get('/admin/jobs', { auth: admin, query: { limit: 1001 } }), 400, 'limit must be an integer from 1 to 1000');
    expect((await rt.http.get('/admin/jobs', { auth: readOnly })).status).toBe(200);
    expectProblem(await rt.http.get('/admin/jobs', { auth: a.owner }), 403, 'missing scope admin');
    expectProblem(await rt.http.get('/admin/jobs'), 401);
  });
});
