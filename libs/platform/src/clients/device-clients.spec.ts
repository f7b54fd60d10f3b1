import { describe, expect, it } from '@jest/globals';
import {
  type DeviceLookup,
  type DeviceLookupBatchRequest,
  type DevicesSeen,
  MAX_DEVICE_LOOKUP_BATCH,
  type EventDef,
  type MessageDef,
  RegistryEvents,
  RegistryMessages,
} from '@app/contracts';
import { MessageBus } from '@app/infra';
import { DeviceDirectory } from './device-directory.js';
import { DeviceSightings } from './device-sightings.js';

/**
 * A bus whose batched lookups are answered device by device by `answer`; `sent` has one entry
 * per device asked for, `batches` one per lookupDevices request. Emits and subscriptions are recorded.
 */
class FakeBus extends MessageBus {
  readonly sent: { customerId: string; hwid: string }[] = [];
  readonly batches: { customerId: string; hwids: readonly string[] }[] = [];
  readonly emitted: { subject: string; payload: unknown }[] = [];
  private readonly listeners = new Map<string, ((payload: unknown) => void)[]>();
  answer: (request: { customerId: string; hwid: string }) => Promise<DeviceLookup | null> = async () => null;

  send<Req, Res>(message: MessageDef<Req, Res>, payload: Req): Promise<Res> {
    expect(message.pattern).toBe(RegistryMessages.lookupDevices.pattern);
    const batch = payload as unknown as DeviceLookupBatchRequest;
    this.batches.push(batch);
    const asked = batch.hwids.map((hwid) => ({ customerId: batch.customerId, hwid }));
    this.sent.push(...asked);
    return Promise.all(asked.map((request) => this.answer(request))) as Promise<Res>;
  }
  emit<P>(event: EventDef<P>, payload: P): void {
    this.emitted.push({ subject: event.subject, payload });
  }
  serve(): () => void {
    throw new Error('FakeBus serves no messages');
  }
  subscribe<P>(event: EventDef<P>, handler: (payload: P) => void | Promise<void>): () => void {
    const list = this.listeners.get(event.subject) ?? [];
    list.push(handler as (payload: unknown) => void);
    this.listeners.set(event.subject, list);
    return () =>
      this.listeners.set(
        event.subject,
        (this.listeners.get(event.subject) ?? []).filter((h) => h !== handler),
      );
  }
  broadcast<P>(event: EventDef<P>, payload: P): void {
    for (const handler of this.listeners.get(event.subject) ?? []) handler(payload);
  }
}

const C1 = '00000000-0000-4000-8000-000000000001';
const C2 = '00000000-0000-4000-8000-000000000002';

describe('DeviceDirectory', () => {
  const setup = (maxEntries = 100) => {
    const bus = new FakeBus();
    const directory = new DeviceDirectory(bus, { ttlMs: 60_000, maxEntries });
    directory.onModuleInit();
    return { bus, directory };
  };

  it('asks the registry once per device and answers from the cache after, "no such device" included', async () => {
    const { bus, directory } = setup();
    bus.answer = async ({ hwid }) => (hwid === 'known' ? { status: 'active', tags: ['a'] } : null);
    expect(await directory.lookup(C1, 'known')).toEqual({ status: 'active', tags: ['a'] });
    expect(await directory.lookup(C1, 'known')).toEqual({ status: 'active', tags: ['a'] });
    expect(await directory.lookup(C1, 'unknown')).toBeNull();
    expect(await directory.lookup(C1, 'unknown')).toBeNull();
    expect(bus.sent).toEqual([
      { customerId: C1, hwid: 'known' },
      { customerId: C1, hwid: 'unknown' },
    ]);
  });

  it('asks for the misses of one event-loop turn together: one request per customer, at most MAX_DEVICE_LOOKUP_BATCH devices each', async () => {
    const { bus, directory } = setup(10_000);
    bus.answer = async ({ customerId, hwid }) => (hwid.endsWith('7') ? null : { status: 'active', tags: [customerId === C1 ? 'one' : 'two', hwid] });
    const many = Array.from({ length: MAX_DEVICE_LOOKUP_BATCH + 3 }, (_, i) => `d${i}`);
    const answers = await Promise.all([...many.map(async (hwid) => directory.lookup(C1, hwid)), directory.lookup(C2, 'd1'), directory.lookup(C2, 'd7')]);
    expect(answers.slice(0, many.length)).toEqual(many.map((hwid) => (hwid.endsWith('7') ? null : { status: 'active', tags: ['one', hwid] })));
    expect(answers.slice(many.length)).toEqual([{ status: 'active', tags: ['two', 'd1'] }, null]);
    expect(bus.batches.map((b) => [b.customerId, b.hwids.length])).toEqual([
      [C1, MAX_DEVICE_LOOKUP_BATCH],
      [C1, 3],
      [C2, 2],
    ]);
    // later turns: answered from the cache, a new miss alone in its batch
    expect(directory.lookup(C1, 'd1')).toEqual({ status: 'active', tags: ['one', 'd1'] });
    expect(await directory.lookup(C1, 'new')).toEqual({ status: 'active', tags: ['one', 'new'] });
    expect(bus.batches.at(-1)).toEqual({ customerId: C1, hwids: ['new'] });
  });

  it('fails every lookup of a batch the registry does not answer, and caches none of them', async () => {
    const { bus, directory } = setup();
    bus.send = () => Promise.reject(new Error('registry down'));
    const results = await Promise.allSettled([directory.lookup(C1, 'a'), directory.lookup(C1, 'b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(directory.size).toBe(0);
  });

  it('coalesces concurrent misses of the same device into one request', async () => {
    const { bus, directory } = setup();
    bus.answer = () => new Promise((resolve) => setTimeout(() => resolve({ status: 'withdrawn', tags: [] }), 10));
    const answers = await Promise.all(Array.from({ length: 20 }, async () => directory.lookup(C1, 'dev')));
    expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ status: 'withdrawn', tags: [] })]));
    expect(bus.sent).toHaveLength(1);
  });

  it('never asks for a HW id no device can have', async () => {
    const { bus, directory } = setup();
    expect(await directory.lookup(C1, 'has space')).toBeNull();
    expect(await directory.lookup(C1, '')).toBeNull();
    expect(bus.sent).toHaveLength(0);
  });

  it('drops one device on deviceChanged with its hwid, every device of the customer with hwid null, nothing of other customers', async () => {
    const { bus, directory } = setup();
    let version = 0;
    bus.answer = async () => ({ status: 'active', tags: [`v${version}`] });
    for (const [c, h] of [
      [C1, 'a'],
      [C1, 'b'],
      [C2, 'a'],
    ] as const)
      await directory.lookup(c, h);
    version = 1;
    bus.broadcast(RegistryEvents.deviceChanged, { customerId: C1, hwid: 'a' });
    expect((await directory.lookup(C1, 'a'))?.tags).toEqual(['v1']);
    expect((await directory.lookup(C1, 'b'))?.tags).toEqual(['v0']);
    version = 2;
    bus.broadcast(RegistryEvents.deviceChanged, { customerId: C1, hwid: null });
    expect((await directory.lookup(C1, 'a'))?.tags).toEqual(['v2']);
    expect((await directory.lookup(C1, 'b'))?.tags).toEqual(['v2']);
    expect((await directory.lookup(C2, 'a'))?.tags).toEqual(['v0']);
  });

  it('does not cache an answer that was in flight when its device changed', async () => {
    const { bus, directory } = setup();
    let release!: (value: DeviceLookup | null) => void;
    bus.answer = () => new Promise((resolve) => (release = resolve));
    const stale = directory.lookup(C1, 'dev');
    await new Promise((resolve) => setImmediate(resolve)); // the batch has gone to the registry
    bus.broadcast(RegistryEvents.deviceChanged, { customerId: C1, hwid: 'dev' });
    release(null);
    expect(await stale).toBeNull();
    bus.answer = async () => ({ status: 'active', tags: [] });
    expect(await directory.lookup(C1, 'dev')).toEqual({ status: 'active', tags: [] });
  });

  it('passes registry errors on without caching them', async () => {
    const { bus, directory } = setup();
    bus.answer = async () => {
      throw new Error('registry unavailable');
    };
    await expect(directory.lookup(C1, 'dev')).rejects.toThrow('registry unavailable');
    bus.answer = async () => null;
    expect(await directory.lookup(C1, 'dev')).toBeNull();
    directory.onModuleDestroy();
  });
});

describe('DeviceSightings', () => {
  const batches = (bus: FakeBus) => bus.emitted.filter((e) => e.subject === RegistryEvents.devicesSeen.subject).map((e) => (e.payload as DevicesSeen).items);

  it('keeps one entry per device, the latest check winning, and sends them in batches on flush', () => {
    const bus = new FakeBus();
    const sightings = new DeviceSightings(bus, { batchSize: 2, intervalMs: 60_000 });
    const t = (s: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, s));
    sightings.record(C1, 'a', '1.0', t(1));
    sightings.record(C1, 'a', '1.1', t(3));
    sightings.record(C1, 'a', '0.9', t(2)); // an older check arriving late does not win
    sightings.record(C1, 'b', '2.0', t(1));
    sightings.record(C2, 'a', '3.0', t(1));
    sightings.record(C1, 'bad id', '1', t(1));
    expect(sightings.size).toBe(3);
    expect(sightings.flush()).toBe(3);
    expect(sightings.size).toBe(0);
    const sent = batches(bus);
    expect(sent.map((items) => items.length)).toEqual([2, 1]);
    expect(sent.flat()).toEqual(
      expect.arrayContaining([
        { customerId: C1, hwid: 'a', fwVersion: '1.1', at: t(3).toISOString() },
        { customerId: C1, hwid: 'b', fwVersion: '2.0', at: t(1).toISOString() },
        { customerId: C2, hwid: 'a', fwVersion: '3.0', at: t(1).toISOString() },
      ]),
    );
    expect(sightings.flush()).toBe(0);
    expect(batches(bus)).toHaveLength(2);
  });

  it('carries the product line the check named and the version key as hex, the latest check winning', () => {
    const bus = new FakeBus();
    const sightings = new DeviceSightings(bus, { intervalMs: 60_000 });
    const line = { hw_name: 'board', hw_version: 'rev1', fw_name: 'main' };
    sightings.record(C1, 'a', '1.0', 1_000, line, '\u0002\u00ff');
    sightings.record(C1, 'a', '1.1', 2_000, { ...line, fw_name: 'other' }, '\u0003');
    sightings.record(C1, 'b', '2.0', 1_000);
    sightings.flush();
    expect(batches(bus).flat()).toEqual([
      { customerId: C1, hwid: 'a', fwVersion: '1.1', at: new Date(2_000).toISOString(), hwName: 'board', hwVersion: 'rev1', fwName: 'other', versionKey: '03' },
      { customerId: C1, hwid: 'b', fwVersion: '2.0', at: new Date(1_000).toISOString() },
    ]);
  });

  it('spreads the batches of a periodic flush over turns of the event loop', async () => {
    const bus = new FakeBus();
    const sightings = new DeviceSightings(bus, { batchSize: 2, intervalMs: 60_000 });
    for (const h of ['a', 'b', 'c', 'd', 'e']) sightings.record(C1, h, '1');
    expect(sightings.flush({ spread: true })).toBe(5);
    expect(batches(bus)).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches(bus)).toHaveLength(2);
    // One more turn, not a timer: a loaded machine can run a timer before the turn that sends the last batch.
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches(bus).map((items) => items.map((i) => i.hwid))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('flushes early when too many devices are held, every interval, and when the module stops', async () => {
    const bus = new FakeBus();
    const sightings = new DeviceSightings(bus, { maxPending: 3, intervalMs: 20 });
    for (const h of ['a', 'b', 'c']) sightings.record(C1, h, '1');
    expect(batches(bus).flat()).toHaveLength(3);
    sightings.onModuleInit();
    sightings.record(C1, 'd', '1');
    await new Promise((r) => setTimeout(r, 60));
    expect(
      batches(bus)
        .flat()
        .map((i) => i.hwid),
    ).toEqual(['a', 'b', 'c', 'd']);
    sightings.record(C1, 'e', '1');
    sightings.onModuleDestroy();
    expect(
      batches(bus)
        .flat()
        .map((i) => i.hwid),
    ).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
