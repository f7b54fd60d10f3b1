import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import {
  type AuditEntryInput,
  type AuditEntryView,
  type AuditPage,
  type AuditQuery,
  type CustomerAuditQuery,
  IdentityMessages,
  type RelayedRecord,
  type RequestLogEntry,
  SERVICE_ADMINISTRATOR,
  type SecurityEventInput,
  ServiceError,
} from '@app/contracts';
import { closeDatabases, configureLogging, MAIL_JOB, MAIL_QUEUE, type MailMessage, openAppDatabase, revertLastMigration } from '@app/infra';
import { DataSource } from 'typeorm';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import { AdminController } from '../../apps/admin/src/controllers/admin.controller.js';
import { AuditController } from '../../apps/admin/src/controllers/audit.controller.js';
import { RetryOperatorNotifications } from '../../apps/admin/src/use-cases/retry-operator-notifications/retry-operator-notifications.usecase.js';
import { FakeBus, FakeJobQueue } from '../../apps/identity/test/fakes.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';
import { compileAdminModule } from './admin.support.js';

configureLogging({ sink: () => undefined });

/** The admin app's audit log and security events on real PostgreSQL: storage, queries, acknowledgement and the operators' mail. */

let now = new Date('2026-11-21T10:00:00.000Z');
let throwaway: Throwaway;
let dataSource: DataSource;
let moduleRef: TestingModule;
let controller: AuditController;
let bus: FakeBus;
let jobs: FakeJobQueue;
let operators: string[] = ['root@operator.example', 'ops@operator.example'];
let identityDown = false;

beforeAll(async () => {
  throwaway = await createThrowaway('admin_audit');
  dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  bus = new FakeBus();
  bus.respond(IdentityMessages.operatorEmails, () => {
    if (identityDown) throw ServiceError.unavailable('identity unavailable');
    return { emails: operators };
  });
  jobs = new FakeJobQueue();
  moduleRef = await compileAdminModule({
    dataSource,
    config: { ...throwaway.config, publicUrl: 'https://fw.example.test' },
    clock: { now: () => now },
    bus,
    jobs,
  });
  controller = moduleRef.get(AuditController);
});

afterAll(async () => {
  await moduleRef?.close();
  await closeDatabases();
  await throwaway?.dispose();
});

const call = <Q, P = Record<string, never>>(query: Q, params?: P, actor = 'user:admin-1') => ({
  ctx: { actor, auditActor: `admin:${actor}` } as never,
  params: (params ?? {}) as P,
  query,
  body: undefined,
});

function audit(overrides: Partial<AuditEntryInput> = {}): AuditEntryInput {
  return {
    ts: now.toISOString(),
    domain: 'acme.example',
    actor: 'user:u-1',
    action: 'token.create',
    target_type: 'token',
    target_id: 't-1',
    before: null,
    after: { name: 'ci' },
    ...overrides,
  };
}

function event(overrides: Partial<SecurityEventInput> = {}): SecurityEventInput {
  return {
    ts: now.toISOString(),
    kind: 'admin_login',
    severity: 'info',
    ip: '192.0.2.1',
    domain: 'operator.example',
    detail: { email: 'root@operator.example' },
    ...overrides,
  };
}

describe('audit log', () => {
  it('stores every entry with before and after; lists newest first, by domain, up to the limit', async () => {
    await controller.auditEvent(audit({ ts: '2026-11-21T09:00:00.000Z', target_id: 'old' }));
    await controller.auditEvent(
      audit({ ts: '2026-11-21T09:30:00.000Z', target_id: 'new', before: { role: 'editor' }, after: { role: 'viewer' }, action: 'member.update' }),
    );
    await controller.auditEvent(audit({ ts: '2026-11-21T09:45:00.000Z', domain: 'other.example', target_id: 'elsewhere' }));
    await controller.auditEvent(audit({ ts: 'not a time' }));
    await controller.auditEvent(
      audit({
        domain: null,
        actor: 'admin:user:x',
        action: 'user.update',
        target_type: 'user',
        target_id: 'a@b.example',
        before: { disabled: false },
        after: { disabled: true },
      }),
    );

    const acme = (await controller.listAudit(call({ offset: 0, domain: 'acme.example', limit: 100 }))).items;
    expect(acme.map((e) => e.target_id)).toEqual(['new', 'old']);
    expect(acme[0]).toEqual({
      ts: '2026-11-21T09:30:00.000Z',
      domain: 'acme.example',
      actor: 'user:u-1',
      actor_email: null,
      action: 'member.update',
      target_type: 'token',
      target_id: 'new',
      before: { role: 'editor' },
      after: { role: 'viewer' },
    });
    expect(acme[1].before).toEqual({});
    const all = (await controller.listAudit(call({ offset: 0, limit: 2 }))).items;
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({ domain: null, action: 'user.update', actor: 'admin:user:x' });
  });

  it('stores what PostgreSQL cannot hold escaped and cuts huge values: the entry is never lost', async () => {
    await controller.auditEvent(audit({ target_id: 'nul\u0000id', after: { note: 'a\u0000b', big: 'x'.repeat(70_000) } }));
    const [entry] = (await controller.listAudit(call({ offset: 0, limit: 1 }))).items;
    expect(entry).toMatchObject({ target_id: 'nul\\u0000id', after: { truncated: true } });
  });

  it('stores hostile values an app accepted: lone surrogates in text and in states (jsonb refuses them), control characters, 1 MiB strings', async () => {
    const mib = 'y'.repeat(1024 * 1024);
    await controller.auditEvent(
      audit({
        ts: '2026-11-21T07:05:00.000Z',
        domain: 'hostile.example',
        actor: `user:\ud800${mib}`,
        action: 'token.create',
        target_id: `\x01\x1b[31m\udc00${mib}`,
        after: { name: '\ud800', ['key\udfff']: ['\x07bell', '\ud83d\ude80'] },
      }),
    );
    const [entry] = (await controller.listAudit(call({ offset: 0, domain: 'hostile.example', limit: 10 }))).items;
    expect(entry.actor).toBe(`user:\\ud800${mib}`.slice(0, 256));
    expect(entry.target_id).toBe(`\x01\x1b[31m\\udc00${mib}`.slice(0, 512));
    expect(entry.after).toEqual({ name: '\\ud800', ['key\\udfff']: ['\x07bell', '\ud83d\ude80'] });
  });
});

describe('security events', () => {
  it('stores them with an id; lists by kind, severity and unacked, newest first', async () => {
    await controller.securityEvent(event({ ts: '2026-11-21T08:00:00.000Z' }));
    await controller.securityEvent(event({ ts: '2026-11-21T08:10:00.000Z', kind: 'login_code_failures', severity: 'warn', domain: null }));
    await controller.securityEvent({ ...event(), severity: 'fatal' as never });
    const all = (await controller.listSecurityEvents(call({ limit: 100 }))).items;
    expect(all.map((e) => e.kind)).toEqual(['login_code_failures', 'admin_login']);
    expect(all[1]).toEqual({
      id: expect.any(Number),
      ts: '2026-11-21T08:00:00.000Z',
      kind: 'admin_login',
      severity: 'info',
      ip: '192.0.2.1',
      domain: 'operator.example',
      detail: { email: 'root@operator.example' },
      notified_at: null,
      acked_at: null,
      acked_by: null,
    });
    expect((await controller.listSecurityEvents(call({ severity: 'warn', limit: 100 }))).items.map((e) => e.kind)).toEqual(['login_code_failures']);
    expect((await controller.listSecurityEvents(call({ kind: 'admin_login', limit: 100 }))).items).toHaveLength(1);
    expect((await controller.listSecurityEvents(call({ limit: 1 }))).items).toHaveLength(1);
  });

  it('stores hostile values an app accepted: NUL, lone surrogates, control characters, 1 MiB strings cut to their lengths', async () => {
    const mib = 'z'.repeat(1024 * 1024);
    await controller.securityEvent(
      event({
        ts: '2026-11-21T08:20:00.000Z',
        kind: `hostile\u0000${mib}`,
        ip: `\ud800${mib}`,
        domain: `\x01${mib}`,
        detail: { path: '/x\u0000\udc00', ['\ud800']: mib },
      }),
    );
    const [stored] = (await controller.listSecurityEvents(call({ kind: `hostile\\u0000${mib}`.slice(0, 100), limit: 10 }))).items;
    expect(stored).toMatchObject({ ip: `\\ud800${mib}`.slice(0, 64), domain: `\x01${mib}`.slice(0, 253) });
    expect(stored.detail).toEqual({ path: '/x\\u0000\\udc00', ['\\ud800']: mib });
  });

  it('ack sets acked_at and acked_by once, writes an audit entry; unknown ids are 404', async () => {
    const [target] = (await controller.listSecurityEvents(call({ kind: 'admin_login', limit: 1 }))).items;
    await controller.ack(call({}, { id: target.id }, 'token:t-9'));
    now = new Date(now.getTime() + 60_000);
    await controller.ack(call({}, { id: target.id }, 'user:someone-else'));
    const [acked] = (await controller.listSecurityEvents(call({ kind: 'admin_login', limit: 1 }))).items;
    expect(acked).toMatchObject({ acked_at: '2026-11-21T10:00:00.000Z', acked_by: 'token:t-9' });
    expect((await controller.listSecurityEvents(call({ unacked: true, limit: 100 }))).items.map((e) => e.id)).not.toContain(target.id);
    const [entry] = (await controller.listAudit(call({ offset: 0, limit: 1 }))).items;
    expect(entry).toMatchObject({ action: 'security_event.ack', target_id: String(target.id), actor: 'admin:token:t-9', after: { acked_by: 'token:t-9' } });
    await expect(controller.ack(call({}, { id: 987654321 }))).rejects.toMatchObject({ status: 404 });
  });

  it('mails critical events to the operators at once (one job per operator, idempotent) and sets notified_at', async () => {
    const before = jobs.jobs.length;
    await controller.securityEvent(event({ kind: 'session_token_reuse', severity: 'critical', domain: 'acme.example', detail: { session_id: 's-1' } }));
    const mails = jobs.jobs.slice(before).filter((j) => j.queue === MAIL_QUEUE && j.name === MAIL_JOB);
    expect(mails.map((j) => (j.data as MailMessage).to).sort()).toEqual([...operators].sort());
    const [stored] = (await controller.listSecurityEvents(call({ kind: 'session_token_reuse', limit: 1 }))).items;
    expect(stored.notified_at).toBe(now.toISOString());
    const mail = mails[0].data as MailMessage;
    expect(mail.subject).toBe('Security alert (critical): session_token_reuse on acme.example');
    expect(mail.text).toContain(`Event id: ${stored.id}`);
    expect(mail.text).toContain(`https://fw.example.test/admin/security/events/${stored.id}/ack`);
    expect(mails[0].options?.jobId).toBe(`security-event:${stored.id}:${mail.to}`);
    // Once only, whoever retries.
    await moduleRef.get(RetryOperatorNotifications).execute();
    expect(jobs.jobs.length).toBe(before + operators.length);
  });

  it('retries later when identity does not answer or there is nobody to mail', async () => {
    identityDown = true;
    const before = jobs.jobs.length;
    await controller.securityEvent(event({ kind: 'session_token_reuse', severity: 'critical', detail: { session_id: 's-2' } }));
    const [pending] = (await controller.listSecurityEvents(call({ kind: 'session_token_reuse', limit: 1 }))).items;
    expect(pending.notified_at).toBeNull();
    expect(jobs.jobs.length).toBe(before);
    identityDown = false;
    operators = [];
    await moduleRef.get(RetryOperatorNotifications).execute();
    expect(jobs.jobs.length).toBe(before);
    operators = ['root@operator.example'];
    await moduleRef.get(RetryOperatorNotifications).execute();
    expect(jobs.jobs.slice(before).map((j) => (j.data as MailMessage).to)).toEqual(['root@operator.example']);
    const [done] = (await controller.listSecurityEvents(call({ kind: 'session_token_reuse', limit: 1 }))).items;
    expect(done.notified_at).not.toBeNull();
  });
});

describe('relayed records and acknowledged request-log batches: delivered at least once, stored once', () => {
  const id = () => randomUUID();

  it('stores an audit entry and a security event once per id, however often they arrive; a critical event is mailed once', async () => {
    const auditId = id();
    const criticalId = id();
    const target = `relayed-${auditId}`;
    const records: RelayedRecord[] = [
      { id: auditId, kind: 'audit', payload: audit({ domain: 'relay.example', target_id: target }) },
      { id: criticalId, kind: 'security_event', payload: event({ kind: 'session_token_reuse', severity: 'critical', detail: { session_id: criticalId } }) },
    ];
    const mailsBefore = jobs.jobs.filter((j) => j.queue === MAIL_QUEUE).length;
    expect(await controller.storeRecords({ records })).toEqual({ stored: 2 });
    expect(await controller.storeRecords({ records })).toEqual({ stored: 0 }); // the reply was lost: sent again
    expect(
      await controller.storeRecords({ records: [records[1], { id: id(), kind: 'audit', payload: audit({ domain: 'relay.example', target_id: target }) }] }),
    ).toEqual({
      stored: 1,
    });
    const entries = (await controller.listAudit(call({ offset: 0, domain: 'relay.example', limit: 100 }))).items.filter((e) => e.target_id === target);
    expect(entries).toHaveLength(2); // two ids: two entries, even with the same content
    const events = (await controller.listSecurityEvents(call({ kind: 'session_token_reuse', limit: 100 }))).items.filter(
      (e) => (e.detail as { session_id?: string }).session_id === criticalId,
    );
    expect(events).toHaveLength(1);
    expect(events[0].notified_at).not.toBeNull();
    expect(jobs.jobs.filter((j) => j.queue === MAIL_QUEUE).length - mailsBefore).toBe(operators.length);
  });

  it('skips records without a valid id or of an unknown kind (acknowledged: never sent again) and stores the rest', async () => {
    const good = id();
    const reply = await controller.storeRecords({
      records: [
        { id: 'not-a-uuid', kind: 'audit', payload: audit() },
        { id: id(), kind: 'unknown' as never, payload: audit() },
        { id: good, kind: 'audit', payload: audit({ domain: 'relay-skip.example', target_id: good }) },
      ],
    });
    expect(reply).toEqual({ stored: 1 });
    expect((await controller.listAudit(call({ offset: 0, domain: 'relay-skip.example', limit: 10 }))).items.map((e) => e.target_id)).toEqual([good]);
  });

  it('stores a request-log batch once per batch_id', async () => {
    const admin = moduleRef.get(AdminController);
    const requestId = `req-${id()}`;
    const entry: RequestLogEntry = {
      ts: now.toISOString(),
      domain: 'relay.example',
      actor: null,
      method: 'GET',
      route: '/devices',
      path: '/devices',
      status: 200,
      ip: '192.0.2.7',
      user_agent: 'medium',
      bytes_in: 0,
      bytes_out: 10,
      duration_ms: 1,
      request_id: requestId,
    };
    const batch = { batch_id: id(), entries: [entry, { ...entry, request_id: `${requestId}-2` }] };
    expect(await admin.storeRequestLog(batch)).toEqual({ stored: 2 });
    expect(await admin.storeRequestLog(batch)).toEqual({ stored: 0 });
    const [{ count }] = (await dataSource.query(`SELECT count(*)::int AS count FROM admin.request_log WHERE request_id LIKE $1`, [`${requestId}%`])) as [
      { count: number },
    ];
    expect(count).toBe(2);
    expect(await admin.storeRequestLog({ batch_id: id(), entries: [] })).toEqual({ stored: 0 });
  });
});

describe('audit log: filters, paging and the customer view', () => {
  const domain = 'pages.example';
  const alice = '0b9e4f2a-7c1d-4e5f-8a9b-0c1d2e3f4a5b';
  const admin = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
  const customer = { id: randomUUID(), domain, isSandbox: false } as never;
  const page = async (query: Partial<AuditQuery>) => controller.listAudit(call({ offset: 0, limit: 100, domain, ...query }));
  const customerPage = async (query: Partial<CustomerAuditQuery>) =>
    controller.listCustomerAudit({ ...call({ offset: 0, limit: 100, ...query }), ctx: { customer, actor: 'user:x', auditActor: 'user:x' } as never });

  beforeAll(async () => {
    bus.respond(IdentityMessages.userEmails, ({ ids }) => ({
      emails: Object.fromEntries(ids.filter((id) => id === alice).map((id) => [id, 'alice@pages.example'])),
    }));
    // An earlier customer of the same domain, deleted: its entries are not the new customer's.
    await controller.auditEvent(
      audit({ ts: '2026-11-01T10:00:00.000Z', domain, actor: `admin:user:${admin}`, action: 'customer.create', target_type: 'customer', target_id: domain }),
    );
    await controller.auditEvent(
      audit({ ts: '2026-11-02T10:00:00.000Z', domain, actor: 'user:former', action: 'device.create', target_type: 'device', target_id: 'old-device' }),
    );
    await controller.auditEvent(
      audit({ ts: '2026-11-03T10:00:00.000Z', domain, actor: `admin:user:${admin}`, action: 'customer.delete', target_type: 'customer', target_id: domain }),
    );
    await controller.auditEvent(
      audit({
        ts: '2026-11-10T00:00:00.000Z',
        domain,
        actor: `admin:user:${admin}`,
        action: 'customer.create',
        target_type: 'customer',
        target_id: domain,
        after: { domain },
      }),
    );
    // 25 entries of the new customer, one a minute, three of them at the same instant.
    for (let i = 0; i < 25; i++) {
      const ts = new Date(Date.parse('2026-11-10T12:00:00.000Z') + Math.min(i, 22) * 60_000).toISOString();
      const byAdmin = i % 5 === 0;
      await controller.auditEvent(
        audit({
          ts,
          domain,
          actor: byAdmin ? `admin:user:${admin}` : `user:${alice}`,
          action: i % 2 === 0 ? 'device.update' : 'token.create',
          target_type: i % 2 === 0 ? 'device' : 'token',
          target_id: `t-${i % 3}`,
          before: null,
          after: byAdmin ? { n: i, created_by: `user:${admin}`, nested: [`admin:user:${admin}`] } : { n: i },
        }),
      );
    }
    // Another customer's entries, with the same actions and targets.
    await controller.auditEvent(
      audit({
        ts: '2026-11-10T12:30:00.000Z',
        domain: 'elsewhere.example',
        actor: `user:${alice}`,
        action: 'device.update',
        target_type: 'device',
        target_id: 't-0',
      }),
    );
  });

  const nOf = (item: AuditEntryView) => (item.after as { n?: number }).n;
  const numbers = (items: readonly AuditEntryView[]) => items.map(nOf);

  it('pages by offset and by cursor through every entry once, newest first, the same instant included', async () => {
    const all = (await page({ limit: 1000 })).items.filter((item) => nOf(item) !== undefined);
    expect(numbers(all)).toHaveLength(25);
    const viaOffset: AuditEntryView[] = [];
    for (let offset: number | null = 0; offset !== null;) {
      const next: AuditPage = await page({ limit: 7, offset, from: '2026-11-10T12:00:00Z' });
      viaOffset.push(...next.items);
      offset = next.next_offset;
    }
    expect(numbers(viaOffset)).toEqual(numbers(all));
    const viaCursor: AuditEntryView[] = [];
    let cursor: string | undefined;
    for (;;) {
      const next: AuditPage = await page({ limit: 2, cursor, from: '2026-11-10T12:00:00Z' });
      viaCursor.push(...next.items);
      if (next.next_cursor === null) break;
      expect(next.next_cursor).toMatch(/^\d+-\d+$/);
      cursor = next.next_cursor;
    }
    expect(numbers(viaCursor)).toEqual(numbers(all));
    expect(numbers(viaCursor)).toEqual([24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const last = await page({ limit: 25, from: '2026-11-10T12:00:00Z' });
    expect(last).toMatchObject({ next_offset: null, next_cursor: null });
  });

  it('filters by action, actor, target type, target id, from and to, each alone and together', async () => {
    const only = async (query: Partial<AuditQuery>) => numbers((await page({ from: '2026-11-10T12:00:00Z', ...query })).items);
    expect(await only({ action: 'token.create' })).toEqual([23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1]);
    expect(await only({ actor: `admin:user:${admin}` })).toEqual([20, 15, 10, 5, 0]);
    expect(await only({ target_type: 'device', actor: `user:${alice}` })).toEqual([24, 22, 18, 16, 14, 12, 8, 6, 4, 2]);
    expect(await only({ target_id: 't-1' })).toEqual([22, 19, 16, 13, 10, 7, 4, 1]);
    expect(await only({ target_type: 'token', target_id: 't-1' })).toEqual([19, 13, 7, 1]);
    expect(await only({ from: '2026-11-10T12:20:00Z', to: '2026-11-10T12:21:00.000Z' })).toEqual([21, 20]);
    expect(await only({ to: '2026-11-10T12:01:00Z' })).toEqual([1, 0]);
    expect(numbers((await page({ from: '2026-11-10', to: '2026-11-10', action: 'device.update', target_id: 't-0' })).items)).toEqual([24, 18, 12, 6, 0]);
    expect((await page({ action: 'none.such' })).items).toEqual([]);
    // Without a domain every customer's entries are listed.
    expect((await controller.listAudit(call({ offset: 0, limit: 100, target_id: 't-0', action: 'device.update' }))).items.map((i) => i.domain)).toContain(
      'elsewhere.example',
    );
    await expect(page({ from: '2026-11-11', to: '2026-11-10' })).rejects.toMatchObject({ status: 400, message: 'from must not be after to' });
    await expect(page({ cursor: '99999999999999999-1' })).rejects.toMatchObject({ status: 400 });
  });

  it('shows the email of each person where identity knows it, and still answers when identity does not', async () => {
    const [entry] = (await page({ actor: `user:${alice}`, limit: 1 })).items;
    expect(entry).toMatchObject({ actor: `user:${alice}`, actor_email: 'alice@pages.example' });
    const [byAdmin] = (await page({ actor: `admin:user:${admin}`, limit: 1 })).items;
    expect(byAdmin.actor_email).toBeNull();
    bus.respond(IdentityMessages.userEmails, () => {
      throw ServiceError.unavailable('identity unavailable');
    });
    try {
      const [plain] = (await page({ actor: `user:${alice}`, limit: 1 })).items;
      expect(plain).toMatchObject({ actor: `user:${alice}`, actor_email: null });
    } finally {
      bus.respond(IdentityMessages.userEmails, ({ ids }) => ({
        emails: Object.fromEntries(ids.filter((id) => id === alice).map((id) => [id, 'alice@pages.example'])),
      }));
    }
  });

  it('the customer view: only its own entries since it was created, administrators shown as service administrator', async () => {
    const { items } = await customerPage({ limit: 1000 });
    expect(items.every((item) => item.domain === domain)).toBe(true);
    expect(items.map((item) => item.target_id)).not.toContain('old-device');
    expect(items.map((item) => item.action)).toContain('customer.create');
    expect(items).toHaveLength(26);
    const byAdmin = items.filter((item) => nOf(item) !== undefined && Number(nOf(item)) % 5 === 0);
    expect(byAdmin).toHaveLength(5);
    for (const item of byAdmin) {
      expect(item).toMatchObject({
        actor: SERVICE_ADMINISTRATOR,
        actor_email: null,
        after: { created_by: SERVICE_ADMINISTRATOR, nested: [SERVICE_ADMINISTRATOR] },
      });
    }
    expect(JSON.stringify(items)).not.toContain(admin);
    expect(items.find((item) => nOf(item) === 1)).toMatchObject({ actor: `user:${alice}`, actor_email: 'alice@pages.example' });
    expect(numbers((await customerPage({ actor: SERVICE_ADMINISTRATOR, action: 'device.update' })).items)).toEqual([20, 10, 0]);
    expect((await customerPage({ actor: `admin:user:${admin}` })).items).toEqual([]);
    const first = await customerPage({ limit: 10, target_type: 'device' });
    const second = await customerPage({ limit: 10, target_type: 'device', cursor: first.next_cursor ?? undefined });
    expect(numbers([...first.items, ...second.items])).toEqual([24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0]);
    expect(second.next_cursor).toBeNull();
  });
});

describe('migrations', () => {
  it('revert cleanly (down) — runs last', async () => {
    await moduleRef.close();
    await closeDatabases();
    const indexes = async () => {
      const check = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
      try {
        const [row] = (await check.query(
          `SELECT to_regclass('admin.request_log_ts_brin')::text AS brin, to_regclass('admin.request_log_ts_idx')::text AS btree`,
        )) as [Record<string, string | null>];
        return row;
      } finally {
        await check.destroy();
      }
    };
    const filterIndexes = async () => {
      const check = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
      try {
        const rows = (await check.query(
          `SELECT indexname FROM pg_indexes WHERE schemaname = 'admin' AND tablename = 'audit_log' ORDER BY indexname`,
        )) as Array<{
          indexname: string;
        }>;
        return rows.map((row) => row.indexname);
      } finally {
        await check.destroy();
      }
    };
    const auditIndexes = await filterIndexes();
    expect(auditIndexes).toEqual(
      expect.arrayContaining([
        'audit_log_action_ts_idx',
        'audit_log_domain_actor_ts_idx',
        'audit_log_target_id_ts_idx',
        'audit_log_domain_administrators_ts_idx',
      ]),
    );
    // The audit log's filter indexes go with their migration's down; the indexes before stay.
    const filtersAt = ADMIN_DATABASE.migrations.findIndex((m) => m.name === 'AuditLogFilters1765060000000');
    for (const migration of ADMIN_DATABASE.migrations.slice(filtersAt).reverse()) {
      expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe(migration.name);
    }
    expect(await filterIndexes()).toEqual(['audit_log_domain_ts_idx', 'audit_log_event_id_key', 'audit_log_pkey', 'audit_log_ts_idx']);
    // The migrations after these first (their own medium tests check what their downs do).
    const later = ADMIN_DATABASE.migrations.slice(ADMIN_DATABASE.migrations.findIndex((m) => m.name === 'RequestLogBrin1764100000000') + 1, filtersAt);
    for (const migration of later.reverse()) expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe(migration.name);
    expect(await indexes()).toEqual({ brin: 'admin.request_log_ts_brin', btree: null });
    expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe('RequestLogBrin1764100000000');
    expect(await indexes()).toEqual({ brin: null, btree: 'admin.request_log_ts_idx' });
    expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe('AdminAuditSecurity1763800000000');
    const check = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
    try {
      const [row] = (await check.query(
        `SELECT to_regclass('admin.audit_log')::text AS audit, to_regclass('admin.security_event')::text AS events, to_regclass('admin.request_log')::text AS log`,
      )) as [Record<string, string | null>];
      expect(row).toEqual({ audit: null, events: null, log: 'admin.request_log' });
    } finally {
      await check.destroy();
    }
  });
});
