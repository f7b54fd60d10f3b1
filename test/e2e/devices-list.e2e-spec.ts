import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeviceApi, type DeviceRecord, type Query, TAG_RULE } from './support/devices.js';
import { expectProblem } from './support/problems.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** GET /devices (docs/api.md "Devices"): the filters (tag repeatable with tag_mode, q, status, has_keys), paging and order. */

interface Model {
  hwid: string;
  tags: string[];
  status: 'active' | 'withdrawn';
  hasKeys: boolean;
}

interface Filter {
  tags: string[];
  tagMode?: 'any' | 'all';
  q?: string;
  status?: 'active' | 'withdrawn';
  hasKeys?: boolean;
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The reference: filter the model the obvious way, sort in byte order. */
function expected(model: readonly Model[], f: Filter): string[] {
  return model
    .filter((d) => f.tags.length === 0 || (f.tagMode === 'all' ? f.tags.every((t) => d.tags.includes(t)) : f.tags.some((t) => d.tags.includes(t))))
    .filter((d) => f.q === undefined || d.hwid.startsWith(f.q))
    .filter((d) => f.status === undefined || d.status === f.status)
    .filter((d) => f.hasKeys === undefined || d.hasKeys === f.hasKeys)
    .map((d) => d.hwid)
    .sort(byteOrder);
}

function queryOf(f: Filter): Query {
  return { tag: f.tags.length ? f.tags : undefined, tag_mode: f.tagMode, q: f.q, status: f.status, has_keys: f.hasKeys };
}

describe('device list', () => {
  let rt: Runtime;
  let customer: CustomerFixture;
  let api: DeviceApi;
  const model: Model[] = [];
  // LIKE wildcards (% _), a backslash, byte order traps (upper before lower case, ~ last), path characters
  const names = [
    'a',
    'a%',
    'a%b',
    'a_',
    'a_b',
    'ab',
    'abc',
    'A',
    'AB',
    'aB',
    'B1',
    'b/1',
    'b?2',
    'b#3',
    'x\\y',
    '~z',
    '!x',
    'z~',
    'zz',
    'x.1',
    'x.10',
    'x.2',
    'm:1',
    'Q',
  ];
  const pool = ['red', 'green', 'blue', 'Red'];

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await rt.newCustomer();
    api = new DeviceApi(rt.baseUrl, customer.full);
    const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const rows = names.map((hwid, i) => ({ hwid, tags: pool.filter((_, j) => (i >> j) & 1) }));
    expect(await api.imported(api.importJson(rows))).toMatchObject({ created: names.length, error_count: 0 });
    for (const [i, { hwid, tags }] of rows.entries()) {
      const hasKeys = i % 3 === 0;
      if (hasKeys) expect((await api.update(hwid, { keys: [pem] })).status).toBe(200);
      const withdrawn = i % 4 === 1;
      if (withdrawn) expect((await api.withdraw(hwid)).status).toBe(200);
      model.push({ hwid, tags, status: withdrawn ? 'withdrawn' : 'active', hasKeys });
    }
    // another customer's devices never appear
    const other = await rt.newCustomer();
    await new DeviceApi(rt.baseUrl, other.full).imported(new DeviceApi(rt.baseUrl, other.full).importJson(names.map((hwid) => ({ hwid, tags: ['red'] }))));
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it('every combination of tag (none, one, several; any, all, default), q, status and has_keys answers like the reference', async () => {
    const tagSets = [[], ['red'], ['Red'], ['red', 'blue'], ['green', 'blue', 'Red'], ['nobody']];
    const modes = [undefined, 'any', 'all'] as const;
    const prefixes = [undefined, 'a', 'a%', 'a_', 'x\\', 'b', '~', 'none'];
    const statuses = [undefined, 'active', 'withdrawn'] as const;
    const keys = [undefined, true, false];
    let checked = 0;
    for (const tags of tagSets)
      for (const tagMode of modes) {
        if (tags.length === 0 && tagMode !== undefined) continue;
        for (const q of prefixes)
          for (const status of statuses)
            for (const hasKeys of keys) {
              const filter: Filter = { tags, tagMode, q, status, hasKeys };
              const reply = await api.list({ ...queryOf(filter), limit: 500 });
              expect(reply.status).toBe(200);
              const page = reply.json<{ items: DeviceRecord[]; next_offset: number | null }>();
              expect({ filter, hwids: page.items.map((d) => d.hwid) }).toEqual({ filter, hwids: expected(model, filter) });
              expect(page.next_offset).toBeNull();
              checked++;
            }
      }
    expect(checked).toBe((1 + 5 * 3) * 8 * 3 * 3);
  });

  it('items are full records, sorted by HW id in byte order, without a filter by default (limit 100)', async () => {
    const reply = await api.list();
    const page = reply.json<{ items: DeviceRecord[]; next_offset: number | null }>();
    expect(page.items.map((d) => d.hwid)).toEqual(expected(model, { tags: [] }));
    expect(page.items.slice(0, 4).map((d) => d.hwid)).toEqual(['!x', 'A', 'AB', 'B1']);
    expect(page.next_offset).toBeNull();
    const first = page.items.find((d) => d.hwid === 'a')!;
    expect((await api.get('a')).json()).toEqual(first);
  });

  it('pages with limit and offset; next_offset leads to the next page and is null on the last', async () => {
    for (const filter of [
      { tags: [] },
      { tags: ['red', 'green'] },
      { tags: ['red', 'blue'], tagMode: 'all' as const },
      { tags: [], status: 'active' as const, q: 'a' },
    ]) {
      const all = expected(model, filter);
      const seen: string[] = [];
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const page: { items: DeviceRecord[]; next_offset: number | null } = (await api.list({ ...queryOf(filter), limit: 3, offset })).json();
        expect(page.items.length).toBeLessThanOrEqual(3);
        seen.push(...page.items.map((d) => d.hwid));
        offset = page.next_offset;
        pages++;
      }
      expect(seen).toEqual(all);
      expect(pages).toBe(Math.max(1, Math.ceil(all.length / 3)));
    }
    const all = expected(model, { tags: [] });
    expect((await api.list({ limit: all.length })).json().next_offset).toBeNull();
    expect((await api.list({ limit: all.length - 1 })).json().next_offset).toBe(all.length - 1);
    expect((await api.list({ offset: all.length })).json()).toEqual({ items: [], next_offset: null });
    expect((await api.list({ limit: 1, offset: 2 })).json().items.map((d: DeviceRecord) => d.hwid)).toEqual([all[2]]);
  });

  it('refuses broken filters with 400 naming the rule', async () => {
    expectProblem(await api.list({ tag: 'no/slash' }), 400, TAG_RULE);
    expectProblem(await api.list({ tag: ['ok', '-bad'] }), 400, TAG_RULE);
    expectProblem(await api.list({ tag: Array.from({ length: 33 }, (_, i) => `t${i}`) }), 400, 'at most 32 tag parameters');
    expectProblem(await api.list({ tag_mode: 'some' }), 400, 'tag_mode must be any or all');
    expectProblem(await api.list({ q: 'has space' }), 400, 'q must be at most 64 printable ASCII characters (0x21-0x7E)');
    expectProblem(await api.list({ q: 'x'.repeat(65) }), 400, 'q must be at most 64 printable ASCII characters (0x21-0x7E)');
    expectProblem(await api.list({ status: 'deleted' }), 400, 'status must be active or withdrawn');
    expectProblem(await api.list({ has_keys: 'maybe' }), 400, 'has_keys must be true or false');
    expectProblem(await api.list({ limit: 0 }), 400, 'limit must be an integer from 1 to 500');
    expectProblem(await api.list({ limit: 501 }), 400, 'limit must be an integer from 1 to 500');
    expectProblem(await api.list({ limit: 'ten' }), 400, 'limit must be an integer from 1 to 500');
    expectProblem(await api.list({ offset: -1 }), 400, 'offset must be an integer from 0 to 9007199254740991');
    expect((await api.list({ limit: 500 })).status).toBe(200);
    expect((await api.list({ q: '' })).json().items).toHaveLength(model.length);
  });
});
