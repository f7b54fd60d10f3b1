import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { DEFAULT_MAINTENANCE_MESSAGE, ErrorCode, ProtectionEvents } from '@app/contracts';
import { closeDatabases, configureLogging, openAppDatabase, revertLastMigration } from '@app/infra';
import { DataSource } from 'typeorm';
import { ADMIN_DATABASE } from '../../apps/admin/src/admin.module.js';
import { AuditController } from '../../apps/admin/src/controllers/audit.controller.js';
import { ProtectionController } from '../../apps/admin/src/controllers/protection.controller.js';
import { FakeBus } from '../../apps/identity/test/fakes.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';
import { compileAdminModule } from './admin.support.js';
import { serviceErrorOf } from '@app/testing';

configureLogging({ sink: () => undefined });

/** Maintenance mode and IP blocks in the admin app on real PostgreSQL: storage, revisions, audit, announcements, the migration's down. */

let now = new Date('2026-11-25T10:00:00.000Z');
let throwaway: Throwaway;
let dataSource: DataSource;
let moduleRef: TestingModule;
let protection: ProtectionController;
let audit: AuditController;
let bus: FakeBus;

beforeAll(async () => {
  throwaway = await createThrowaway('admin_protection');
  dataSource = await openAppDatabase(throwaway.config, ADMIN_DATABASE);
  bus = new FakeBus();
  moduleRef = await compileAdminModule({ dataSource, config: { ...throwaway.config, publicUrl: 'https://fw.example.test' }, clock: { now: () => now }, bus });
  protection = moduleRef.get(ProtectionController);
  audit = moduleRef.get(AuditController);
});

afterAll(async () => {
  await moduleRef?.close();
  await closeDatabases();
  await throwaway?.dispose();
});

const call = <Q, B>(query: Q, body: B, actor = 'user:admin-1', ip = '192.0.2.10') => ({
  ctx: { actor, auditActor: actor, ip } as never,
  params: {} as never,
  query: query as never,
  body: body as never,
});

describe('maintenance setting', () => {
  it('starts off with the default message, is set and audited, and bumps the revision', async () => {
    expect(await protection.getMaintenance()).toEqual({ enabled: false, message: DEFAULT_MAINTENANCE_MESSAGE });
    const first = await protection.state({ knownRevision: null });
    expect(first).toMatchObject({ changed: true, maintenance: { enabled: false }, blocks: [] });
    expect(await protection.state({ knownRevision: first.revision })).toEqual({ changed: false, revision: first.revision });

    // The answer carries the state after the change, for the gateway that forwarded it.
    const on = await protection.updateMaintenance(call({}, { enabled: true, message: ' upgrading ' }));
    expect(on.result).toEqual({ enabled: true, message: 'upgrading' });
    const second = await protection.state({ knownRevision: first.revision });
    expect(second).toMatchObject({ changed: true, maintenance: { enabled: true, message: 'upgrading' } });
    expect(on.protection).toEqual(second);
    expect(bus.events(ProtectionEvents.changed).at(-1)).toEqual({ revision: second.revision });
    const off = await protection.updateMaintenance(call({}, { enabled: false }));
    expect(off.result).toEqual({ enabled: false, message: DEFAULT_MAINTENANCE_MESSAGE });
    expect(off.protection).toMatchObject({ changed: true, maintenance: { enabled: false }, blocks: [] });
    expect(BigInt(off.protection.revision)).toBeGreaterThan(BigInt(second.revision));

    const entries = (await audit.listAudit({ ctx: {} as never, params: {}, query: { limit: 10, offset: 0 }, body: undefined })).items.filter(
      (e) => e.action === 'maintenance.update',
    );
    expect(entries.map((e) => [e.actor, e.before, e.after])).toEqual([
      ['admin:user:admin-1', { enabled: true, message: 'upgrading' }, { enabled: false, message: DEFAULT_MAINTENANCE_MESSAGE }],
      ['admin:user:admin-1', { enabled: false, message: DEFAULT_MAINTENANCE_MESSAGE }, { enabled: true, message: 'upgrading' }],
    ]);
  });
});

describe('IP blocks', () => {
  it('stores normalised networks, replaces a network blocked again, expires, lists and deletes', async () => {
    const created = await protection.createIpBlock(call({}, { cidr: '203.0.113.77/24', reason: 'scanner', ttl_seconds: 60 }));
    expect(created.result).toEqual({ cidr: '203.0.113.0/24', reason: 'scanner', expires_at: '2026-11-25T10:01:00.000Z' });
    expect(created.protection).toMatchObject({ changed: true, blocks: [{ cidr: '203.0.113.0/24', expires_at: '2026-11-25T10:01:00.000Z' }] });
    expect(bus.events(ProtectionEvents.changed).at(-1)).toEqual({ revision: created.protection.revision });
    await protection.createIpBlock(call({}, { cidr: '::ffff:198.51.100.9' }));
    await protection.createIpBlock(call({}, { cidr: '2001:db8::1/48' }, 'token:t-1'));

    const listed = await protection.listIpBlocks(call({}, undefined));
    expect(listed.items.map((b) => b.cidr).sort()).toEqual(['198.51.100.9/32', '2001:db8::/48', '203.0.113.0/24']);
    expect(listed.items.find((b) => b.cidr === '2001:db8::/48')).toEqual({
      cidr: '2001:db8::/48',
      reason: null,
      created_by: 'token:t-1',
      created_at: now.toISOString(),
      expires_at: null,
    });
    const state = await protection.state({ knownRevision: null });
    expect(state.changed && [...state.blocks].sort((a, b) => a.cidr.localeCompare(b.cidr))).toEqual([
      { cidr: '198.51.100.9/32', expires_at: null },
      { cidr: '2001:db8::/48', expires_at: null },
      { cidr: '203.0.113.0/24', expires_at: '2026-11-25T10:01:00.000Z' },
    ]);

    // The same network again: one row, the new reason and expiry, the old one in the audit entry.
    await protection.createIpBlock(call({}, { cidr: '203.0.113.1/24', reason: 'still scanning', ttl_seconds: 30 }));
    const again = (await protection.listIpBlocks(call({}, undefined))).items.filter((b) => b.cidr === '203.0.113.0/24');
    expect(again).toEqual([expect.objectContaining({ reason: 'still scanning', expires_at: '2026-11-25T10:00:30.000Z' })]);

    // Expired: gone from the list and from the state, listed with all=true.
    now = new Date('2026-11-25T10:00:31.000Z');
    expect((await protection.listIpBlocks(call({}, undefined))).items.some((b) => b.cidr === '203.0.113.0/24')).toBe(false);
    expect((await protection.listIpBlocks(call({ all: true }, undefined))).items.some((b) => b.cidr === '203.0.113.0/24')).toBe(true);
    const later = await protection.state({ knownRevision: null });
    expect(later.changed && later.blocks.map((b) => b.cidr)).not.toContain('203.0.113.0/24');

    const removed = await protection.deleteIpBlock(call({ cidr: '198.51.100.9' }, undefined));
    expect(removed.result).toBeNull();
    expect(removed.protection.blocks.map((b) => b.cidr)).not.toContain('198.51.100.9/32');
    const missing = await serviceErrorOf(protection.deleteIpBlock(call({ cidr: '198.51.100.9/32' }, undefined)));
    expect(missing.code).toBe(ErrorCode.NotFound);
    const bad = await serviceErrorOf(protection.createIpBlock(call({}, { cidr: '300.1.1.1' })));
    expect(bad.code).toBe(ErrorCode.BadRequest);
    expect(bad.message).toMatch(/^cidr must be an IPv4 or IPv6 address or CIDR network/);

    const actions = (await audit.listAudit({ ctx: {} as never, params: {}, query: { limit: 20, offset: 0 }, body: undefined })).items
      .filter((e) => e.target_type === 'ip_block')
      .map((e) => `${e.action} ${e.target_id}`);
    expect(actions).toEqual([
      'ip_block.delete 198.51.100.9/32',
      'ip_block.create 203.0.113.0/24',
      'ip_block.create 2001:db8::/48',
      'ip_block.create 198.51.100.9/32',
      'ip_block.create 203.0.113.0/24',
    ]);
  });
});

describe("a block of the caller's own address", () => {
  it('is refused with 409 and stores nothing, unless confirmed', async () => {
    const before = await protection.state({ knownRevision: null });
    const announced = bus.events(ProtectionEvents.changed).length;
    for (const [cidr, ip] of [
      ['192.0.2.0/24', '192.0.2.10'],
      ['::ffff:192.0.2.10', '192.0.2.10'],
      ['2001:db8:7::/48', '2001:db8:7::5'],
    ]) {
      const refused = await serviceErrorOf(protection.createIpBlock(call({}, { cidr, reason: 'oops' }, 'user:admin-1', ip)));
      expect(refused.code).toBe(ErrorCode.Conflict);
      expect(refused.message).toMatch(
        / covers your own address .*: every request from it would get 403 address blocked\. To block it anyway, send confirm_own_address: true$/,
      );
      expect(refused.message).toContain(ip);
    }
    const refused = await serviceErrorOf(
      protection.createIpBlock(call({}, { cidr: '192.0.2.0/24', confirm_own_address: false }, 'user:admin-1', '192.0.2.10')),
    );
    expect(refused.message).toBe(
      '192.0.2.0/24 covers your own address 192.0.2.10: every request from it would get 403 address blocked. To block it anyway, send confirm_own_address: true',
    );
    expect(await protection.state({ knownRevision: before.revision })).toEqual({ changed: false, revision: before.revision });
    expect(bus.events(ProtectionEvents.changed)).toHaveLength(announced);

    // Another address's network, and the own one confirmed.
    expect((await protection.createIpBlock(call({}, { cidr: '192.0.2.0/24' }, 'user:admin-1', '198.51.100.1'))).result.cidr).toBe('192.0.2.0/24');
    const confirmed = await protection.createIpBlock(call({}, { cidr: '192.0.2.10', confirm_own_address: true }, 'user:admin-1', '192.0.2.10'));
    expect(confirmed.protection.blocks.map((b) => b.cidr)).toEqual(expect.arrayContaining(['192.0.2.0/24', '192.0.2.10/32']));
    await protection.deleteIpBlock(call({ cidr: '192.0.2.0/24' }, undefined));
    await protection.deleteIpBlock(call({ cidr: '192.0.2.10' }, undefined));
  });
});

describe('migrations', () => {
  it('revert cleanly (down) — runs last', async () => {
    await moduleRef.close();
    await closeDatabases();
    // The migrations after this one first (their own medium tests check what their downs do).
    const later = ADMIN_DATABASE.migrations.slice(ADMIN_DATABASE.migrations.findIndex((m) => m.name === 'Protection1764300000000') + 1);
    for (const migration of later.reverse()) expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe(migration.name);
    expect(await revertLastMigration(throwaway.config, ADMIN_DATABASE)).toBe('Protection1764300000000');
    const check = await openAppDatabase(throwaway.config, { ...ADMIN_DATABASE, migrate: false });
    try {
      const [row] = (await check.query(
        `SELECT to_regclass('admin.maintenance_setting')::text AS setting, to_regclass('admin.ip_blocks')::text AS blocks, to_regclass('admin.audit_log')::text AS audit`,
      )) as [Record<string, string | null>];
      expect(row).toEqual({ setting: null, blocks: null, audit: 'admin.audit_log' });
    } finally {
      await check.destroy();
    }
  });
});
