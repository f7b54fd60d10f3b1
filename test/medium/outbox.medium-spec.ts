import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { AdminMessages, type AuditEntryInput, type MessageDef, type RelayedRecord, ServiceError } from '@app/contracts';
import { closeDatabases, configureLogging, MessageBus, openAppDatabase } from '@app/infra';
import { OUTBOX_BATCH, OutboxRelay, OutboxRepository } from '@app/platform';
import type { DataSource } from 'typeorm';
import { REGISTRY_DATABASE } from '../../apps/registry/src/registry.module.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';

configureLogging({ sink: () => undefined });

/**
 * The outbox of a producing app (OutboxRepository) and its relay (OutboxRelay) on a real
 * database (the registry's schema; MEDIUM_DATABASE=embedded: PGlite): rows commit with their
 * transaction, replicas claim disjoint rows, a row goes only after the admin app's reply, and a
 * failed delivery is retried.
 */

/** An admin app stand-in: stores what AdminMessages.storeRecords brings, or fails while `down`. */
class AdminStandIn extends MessageBus {
  readonly received: RelayedRecord[] = [];
  down = false;
  async send<Req, Res>(message: MessageDef<Req, Res>, payload: Req): Promise<Res> {
    if (message.pattern !== AdminMessages.storeRecords.pattern) throw new Error(`unexpected ${message.pattern}`);
    await new Promise((resolve) => setImmediate(resolve)); // replies arrive later, as over NATS
    if (this.down) throw ServiceError.unavailable('admin unavailable');
    const { records } = payload as { records: RelayedRecord[] };
    this.received.push(...JSON.parse(JSON.stringify(records)));
    return { stored: records.length } as Res;
  }
  emit(): void {}
  serve(): () => void {
    throw new Error('no');
  }
  subscribe(): () => void {
    return () => undefined;
  }
}

let throwaway: Throwaway;
let dataSource: DataSource;
let outbox: OutboxRepository;

const entry = (n: number): AuditEntryInput => ({
  ts: '2026-11-25T10:00:00.000Z',
  domain: 'outbox.example',
  actor: 'user:u1',
  action: 'device.create',
  target_type: 'device',
  target_id: `dev-${n}`,
  before: null,
  after: { n, note: 'nul \u0000 kept' },
});

const pending = async () => Number((await dataSource.query(`SELECT count(*)::int AS n FROM registry.outbox`))[0].n);

beforeAll(async () => {
  throwaway = await createThrowaway('outbox');
  dataSource = await openAppDatabase(throwaway.config, REGISTRY_DATABASE);
  outbox = new OutboxRepository(dataSource.manager, 'registry');
});

afterAll(async () => {
  await closeDatabases();
  await throwaway?.dispose();
});

beforeEach(async () => {
  await dataSource.query(`DELETE FROM registry.outbox`);
});

describe('OutboxRepository', () => {
  it('writes with the transaction it is given: a rolled-back change leaves no entry', async () => {
    await dataSource
      .transaction(async (manager) => {
        await new OutboxRepository(manager, 'registry').audit(entry(1));
        throw new Error('the change failed');
      })
      .catch(() => undefined);
    expect(await pending()).toBe(0);
    await dataSource.transaction((manager) => new OutboxRepository(manager, 'registry').audit(entry(2)));
    expect(await pending()).toBe(1);
  });

  it('gives each entry a UUID; claims oldest first, disjoint between claimers, leased until released', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) ids.push(await outbox.audit(entry(n)));
    expect(new Set(ids).size).toBe(5);
    const first = await outbox.claim(3);
    const second = await new OutboxRepository(dataSource.manager, 'registry').claim(3);
    expect(first.map((c) => c.record.id)).toEqual(ids.slice(0, 3));
    expect(second.map((c) => c.record.id)).toEqual(ids.slice(3));
    expect(await outbox.claim(10)).toEqual([]); // all leased
    expect(first[0]).toEqual({ record: { id: ids[0], kind: 'audit', payload: entry(0) }, attempts: 1 });
    expect((first[0].record.payload as AuditEntryInput).after).toEqual({ n: 0, note: 'nul \u0000 kept' });

    await outbox.release(ids.slice(0, 3), 0);
    const again = await outbox.claim(10);
    expect(again.map((c) => [c.record.id, c.attempts])).toEqual(ids.slice(0, 3).map((id) => [id, 2]));
    await outbox.acknowledge(ids);
    expect(await pending()).toBe(0);
  });

  it('releases for later: not claimable before the retry delay', async () => {
    const id = await outbox.securityEvent({ ts: new Date().toISOString(), kind: 'k', severity: 'warn', ip: null, domain: null, detail: {} });
    await outbox.claim(1);
    await outbox.release([id], 60_000);
    expect(await outbox.claim(1)).toEqual([]);
    expect(await outbox.backlog()).toEqual({ pending: 1, oldestSeconds: expect.any(Number) });
  });
});

describe('OutboxRelay', () => {
  it('keeps every entry while the admin app is down and delivers them all once it answers, then deletes them', async () => {
    const admin = new AdminStandIn();
    const relay = new OutboxRelay(dataSource, admin, 'registry');
    for (let n = 0; n < 30; n++) await outbox.audit(entry(n));
    admin.down = true;
    await relay.drain();
    expect(relay.failedAttempts).toBe(1);
    expect(await pending()).toBe(30); // nothing lost
    await dataSource.query(`UPDATE registry.outbox SET claimed_until = '-infinity'`); // the backoff has passed
    admin.down = false;
    await relay.drain();
    expect(admin.received.map((r) => (r.payload as AuditEntryInput).target_id)).toEqual(Array.from({ length: 30 }, (_, n) => `dev-${n}`));
    expect(await pending()).toBe(0);
    expect(relay.delivered).toBe(30);
  });

  it('two replicas relaying the same table deliver every entry exactly once between them (no failure: no repeat)', async () => {
    const admin = new AdminStandIn();
    const relays = [new OutboxRelay(dataSource, admin, 'registry'), new OutboxRelay(dataSource, admin, 'registry')];
    const total = OUTBOX_BATCH * 2 + 37;
    const written = new Set<string>();
    for (let n = 0; n < total; n++) written.add(await outbox.audit(entry(n)));
    await Promise.all(relays.map((r) => r.drain()));
    const ids = admin.received.map((r) => r.id);
    expect(ids).toHaveLength(total);
    expect(new Set(ids)).toEqual(written);
    expect(await pending()).toBe(0);
  });

  it('a relay that died mid-send: its rows go again once the lease lapses (a repeat the admin app skips by id)', async () => {
    const id = await outbox.audit(entry(1));
    await outbox.claim(10); // a replica claimed and was killed before the reply
    const admin = new AdminStandIn();
    const relay = new OutboxRelay(dataSource, admin, 'registry');
    await relay.drain();
    expect(admin.received).toEqual([]);
    await dataSource.query(`UPDATE registry.outbox SET claimed_until = now() - interval '1 second'`); // 30 s later
    await relay.drain();
    expect(admin.received.map((r) => r.id)).toEqual([id]);
  });

  it('started with the app: relays what an earlier run left, and new entries within moments', async () => {
    await outbox.audit(entry(1));
    const admin = new AdminStandIn();
    const relay = new OutboxRelay(dataSource, admin, 'registry');
    relay.onModuleInit();
    try {
      const deadline = Date.now() + 5_000;
      while (admin.received.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await outbox.audit(entry(2));
      while (admin.received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(admin.received.map((r) => (r.payload as AuditEntryInput).target_id)).toEqual(['dev-1', 'dev-2']);
    } finally {
      await relay.onApplicationShutdown();
    }
  });
});
