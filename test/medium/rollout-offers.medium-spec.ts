import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { asCustomerId, type CustomerRef, type RolloutOutcome } from '@app/contracts';
import { closeDatabases, configureLogging, openAppDatabase } from '@app/infra';
import { makeCustomer } from '@app/testing';
import type { DataSource } from 'typeorm';
import { versionKey } from '../../apps/firmware/src/domain/version-order.js';
import { REGISTRY_DATABASE } from '../../apps/registry/src/registry.module.js';
import { DeviceSightingRepository } from '../../apps/registry/src/repositories/device-sighting.repository.js';
import { type OutcomeRules, RolloutOfferRepository } from '../../apps/registry/src/repositories/rollout-offer.repository.js';
import { createThrowaway, type Throwaway } from './logdata.support.js';

/**
 * The registry's rollout offers (docs/api.md "Staged rollouts", "Outcomes per device") on a real
 * database: first offers from the sightings, reports recorded against them (also a report that
 * came before the offer), every outcome rule, the device pages, the tenant in every query.
 */
configureLogging({ sink: () => undefined });
jest.setTimeout(120_000);

let throwaway: Throwaway;
let dataSource: DataSource;

beforeAll(async () => {
  throwaway = await createThrowaway('rollout_offers');
  dataSource = await openAppDatabase(throwaway.config, REGISTRY_DATABASE);
});

afterAll(async () => {
  await closeDatabases();
  await throwaway?.dispose();
});

const LINE = { hwName: 'board', hwVersion: 'rev1', fwName: 'main' } as const;
const hex = (version: string) => versionKey(version).toString('hex');
const offers = <T>(work: (repository: RolloutOfferRepository) => Promise<T>) => dataSource.transaction((m) => work(new RolloutOfferRepository(m)));

interface Seen {
  readonly customer: CustomerRef;
  readonly hwid: string;
  readonly fwVersion: string;
  readonly at: Date;
  readonly offer?: { rolloutId: string; buildId: string; stage: number };
}

function seen(customer: CustomerRef, hwid: string, fwVersion: string, at: Date, offer?: Seen['offer']): Seen {
  return { customer, hwid, fwVersion, at, ...(offer ? { offer } : {}) };
}

/** What the registry's RecordSightings does with a batch of one customer: the sightings, then their first offers. */
async function devicesSeen(items: readonly Seen[]): Promise<void> {
  const customerId = asCustomerId(items[0].customer.id);
  const sightings = [...items]
    .sort((a, b) => (a.hwid < b.hwid ? -1 : 1))
    .map((i) => ({ hwid: i.hwid, fwVersion: i.fwVersion, at: i.at, line: { ...LINE, versionKey: hex(i.fwVersion) } }));
  await dataSource.transaction((m) => new DeviceSightingRepository(m).record({ customerId, sightings }));
  const rows = items.flatMap((i) => (i.offer ? [{ ...i.offer, hwid: i.hwid, versionKey: hex('2.0'), at: i.at }] : []));
  await offers((r) => r.recordOffers({ customerId, offers: rows }));
}

async function createDevice(customer: CustomerRef, hwid: string): Promise<void> {
  await dataSource.query(`INSERT INTO registry.device (customer_id, hwid) VALUES ($1, $2)`, [customer.id, hwid]);
}

describe('rollout offers', () => {
  const customer = makeCustomer();
  const neighbour = makeCustomer();
  const rolloutId = randomUUID();
  const buildId = randomUUID();
  const offeredAt = new Date('2026-11-27T10:00:00Z');
  const minutes = (n: number) => new Date(offeredAt.getTime() + n * 60_000);
  const rules = (now: Date): OutcomeRules => ({ rolloutId, versionKey: versionKey('2.0'), graceMinutes: 60, silentAfterMinutes: 1_440, now });
  const offer = (stage: number) => ({ rolloutId, buildId, stage });

  beforeAll(async () => {
    for (const hwid of ['failed', 'reported-first', 'rolled', 'updated', 'silent', 'not-installed', 'pending', 'never-offered']) {
      await createDevice(customer, hwid);
    }
    await createDevice(neighbour, 'updated');
    // The checks that offered the build (stage 0 for the first four, 1 for the rest), on 1.0.
    const first = ['failed', 'rolled', 'updated', 'silent'];
    await devicesSeen(
      ['failed', 'rolled', 'updated', 'silent', 'not-installed', 'pending'].map((h) => seen(customer, h, '1.0', offeredAt, offer(first.includes(h) ? 0 : 1))),
    );
    // A second offer of the same rollout to a device changes nothing (the first wins).
    await devicesSeen([seen(customer, 'pending', '1.0', minutes(1), offer(2))]);
  });

  it('records the first offer per device and rollout, with its stage, and only for the customer that offered it', async () => {
    const [row] = await dataSource.query(`SELECT stage, offered_at FROM registry.rollout_offer WHERE rollout_id = $1 AND hwid = 'pending'`, [rolloutId]);
    expect(row.stage).toBe(1);
    expect(new Date(row.offered_at as string).toISOString()).toBe(offeredAt.toISOString());
    const neighbours = await offers((r) => r.progress({ customerId: asCustomerId(neighbour.id), ...rules(minutes(5)) }));
    expect(neighbours).toEqual([]);
  });

  it('computes every outcome by its rule, first rule that holds', async () => {
    // failed: its report; rolled: the build's version, then 1.0 again; updated: on 2.0;
    // not-installed: seen after the grace time on 1.0; pending: seen within the grace time.
    await offers((r) => r.recordReport({ customerId: asCustomerId(customer.id), hwid: 'failed', buildId, outcome: 'failed', reason: 'flash', at: minutes(2) }));
    await devicesSeen([seen(customer, 'rolled', '2.0', minutes(10)), seen(customer, 'updated', '2.0', minutes(10))]);
    await devicesSeen([
      seen(customer, 'rolled', '1.0', minutes(20)),
      seen(customer, 'not-installed', '1.0', minutes(61)),
      seen(customer, 'pending', '1.0', minutes(30)),
    ]);
    const outcomeOf = async (now: Date) =>
      new Map(
        (await offers((r) => r.devices({ customerId: asCustomerId(customer.id), ...rules(now), outcome: null, stage: null, limit: 100, offset: 0 }))).items.map(
          (d) => [d.hwid, d.outcome],
        ),
      );
    expect(Object.fromEntries(await outcomeOf(minutes(120)))).toEqual({
      failed: 'failed',
      rolled: 'rolled_back',
      updated: 'updated',
      silent: 'pending',
      'not-installed': 'not_installed',
      pending: 'pending',
    } satisfies Record<string, RolloutOutcome>);
    // A day later the device that never checked in again is silent; the others keep theirs.
    const later = await outcomeOf(minutes(1_440 + 30));
    expect(later.get('silent')).toBe('silent');
    expect(later.get('updated')).toBe('updated');
    // Counts per stage as the rollout's progress reads them.
    const progress = await offers((r) => r.progress({ customerId: asCustomerId(customer.id), ...rules(minutes(120)) }));
    expect(progress.filter((p) => p.stage === 0).reduce((n, p) => n + p.devices, 0)).toBe(4);
    expect(progress).toContainEqual({ stage: 1, outcome: 'not_installed', devices: 1 });
  });

  it('pages the devices by stage then HW id, filtered by outcome and stage, with the total', async () => {
    const page = await offers((r) =>
      r.devices({ customerId: asCustomerId(customer.id), ...rules(minutes(120)), outcome: null, stage: null, limit: 3, offset: 0 }),
    );
    expect(page.total).toBe(6);
    expect(page.items.map((d) => [d.stage, d.hwid])).toEqual([
      [0, 'failed'],
      [0, 'rolled'],
      [0, 'silent'],
    ]);
    const failed = await offers((r) =>
      r.devices({ customerId: asCustomerId(customer.id), ...rules(minutes(120)), outcome: 'failed', stage: 0, limit: 10, offset: 0 }),
    );
    expect(failed).toMatchObject({ total: 1, items: [{ hwid: 'failed', reportedReason: 'flash' }] });
  });

  it('takes over a report that came before the offer was recorded (the report follows the check at once, the offer the next sightings batch)', async () => {
    await dataSource.query(
      `INSERT INTO registry.device_report (customer_id, hwid, report_id, build_id, fw_version, outcome, reason, reported_at)
       VALUES ($1, 'reported-first', 'r-1', $2, '2.0', 'failed', 'early', $3)`,
      [customer.id, buildId, minutes(1)],
    );
    expect(
      await offers((r) =>
        r.recordReport({ customerId: asCustomerId(customer.id), hwid: 'reported-first', buildId, outcome: 'failed', reason: 'early', at: minutes(1) }),
      ),
    ).toBe(0);
    await devicesSeen([seen(customer, 'reported-first', '1.0', minutes(1), offer(0))]);
    const page = await offers((r) =>
      r.devices({ customerId: asCustomerId(customer.id), ...rules(minutes(5)), outcome: 'failed', stage: null, limit: 10, offset: 0 }),
    );
    expect(page.items.map((d) => [d.hwid, d.reportedReason])).toContainEqual(['reported-first', 'early']);
  });

  it('a report never reaches another customer’s offers, and customer erasure removes only its own', async () => {
    expect(
      await offers((r) =>
        r.recordReport({ customerId: asCustomerId(neighbour.id), hwid: 'updated', buildId, outcome: 'failed', reason: null, at: minutes(3) }),
      ),
    ).toBe(0);
    expect(await offers((r) => r.deleteCustomerRows(asCustomerId(neighbour.id)))).toBe(0);
    expect(await offers((r) => r.deleteCustomerRows(asCustomerId(customer.id)))).toBeGreaterThanOrEqual(7);
    expect(await dataSource.query(`SELECT 1 FROM registry.rollout_offer WHERE customer_id = $1`, [customer.id])).toEqual([]);
  });
});
