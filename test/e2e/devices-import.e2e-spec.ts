import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeviceApi, type DeviceRecord, HWID_RULE, TAG_RULE } from './support/devices.js';
import { expectProblem } from './support/problems.js';
import { letters, sleep } from './support/factories.js';
import { streamingRequest } from './support/http.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** POST /devices/import (docs/api.md "Devices"): JSON array or CSV, upserts, per-row errors, idempotent. */

const IMPORT_MAX_BYTES = 64 * 1024 * 1024;

describe('device import', () => {
  let rt: Runtime;
  let customer: CustomerFixture;
  let api: DeviceApi;

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await rt.newCustomer();
    api = new DeviceApi(rt.baseUrl, customer.full);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  const prefix = () => `${letters(6)}-`;
  const listAll = async (q: string): Promise<DeviceRecord[]> => (await api.list({ q, limit: 500 })).json().items;

  describe('CSV', () => {
    it('applies the good rows and reports each bad one with its CSV line (header = line 1, quoted line breaks counted)', async () => {
      const p = prefix();
      const csv = [
        'hwid,tags',
        `${p}1,beta alpha`, // 2
        `"${p}2,comma",`, // 3
        `${p}bad id,x`, // 4
        `${p}3,good -bad`, // 5
        '', // 6: blank, skipped
        `"${p}4","multi`, // 7
        `line"`, // 8
        `${p}5`, // 9: one field
        `${p}6,a,b`, // 10: three fields
        `"${p}7""q",gamma`, // 11
        `${p}8,x"y`, // 12: stray quote
        `${'x'.repeat(65)},a`, // 13
      ].join('\r\n');
      const result = await api.imported(api.importCsv(csv));
      expect(result).toEqual({
        created: 3,
        updated: 0,
        unchanged: 0,
        errors: [
          { line: 4, hwid: `${p}bad id`, error: HWID_RULE },
          { line: 5, hwid: `${p}3`, error: `${TAG_RULE} (got "-bad")` },
          { line: 7, hwid: `${p}4`, error: `${TAG_RULE} (got "multi\\r\\nline")` },
          { line: 9, hwid: `${p}5`, error: 'expected 2 fields, found 1' },
          { line: 10, hwid: `${p}6`, error: 'expected 2 fields, found 3' },
          { line: 12, hwid: null, error: 'quote inside an unquoted field (quote the whole field and double the quote)' },
          { line: 13, hwid: 'x'.repeat(65), error: HWID_RULE },
        ],
        error_count: 7,
      });
      const devices = await listAll(p);
      expect(devices.map((d) => [d.hwid, d.tags, d.status])).toEqual([
        [`${p}1`, ['alpha', 'beta'], 'active'],
        [`${p}2,comma`, [], 'active'],
        [`${p}7"q`, ['gamma'], 'active'],
      ]);
    });

    it('importing the same file again changes nothing: every row unchanged, updated_at kept', async () => {
      const p = prefix();
      const csv = `hwid,tags\n${Array.from({ length: 50 }, (_, i) => `${p}${String(i).padStart(3, '0')},t${i % 5} fleet`).join('\n')}\n`;
      expect(await api.imported(api.importCsv(csv))).toEqual({ created: 50, updated: 0, unchanged: 0, errors: [], error_count: 0 });
      const before = await listAll(p);
      await sleep(20);
      expect(await api.imported(api.importCsv(csv))).toEqual({ created: 0, updated: 0, unchanged: 50, errors: [], error_count: 0 });
      expect(await listAll(p)).toEqual(before);
      // a changed file updates only the rows that differ
      const changed = csv.replace(`${p}007,t2 fleet`, `${p}007,t2 fleet extra`);
      expect(await api.imported(api.importCsv(changed))).toMatchObject({ created: 0, updated: 1, unchanged: 49 });
      const after = await listAll(p);
      expect(after.filter((d, i) => JSON.stringify(d) !== JSON.stringify(before[i])).map((d) => [d.hwid, d.tags])).toEqual([
        [`${p}007`, ['extra', 'fleet', 't2']],
      ]);
    });

    it('a tags column replaces the tag set (an empty cell clears it); a file with only hwid keeps tags; status is never touched', async () => {
      const p = prefix();
      await api.created({ hwid: `${p}w`, tags: ['old'], attributes: { keep: true } });
      await api.withdraw(`${p}w`);
      expect(await api.imported(api.importCsv(`hwid\n${p}w\n${p}new\n`))).toMatchObject({ created: 1, updated: 0, unchanged: 1 });
      expect((await api.get(`${p}w`)).json()).toMatchObject({ tags: ['old'], status: 'withdrawn', attributes: { keep: true } });
      expect(await api.imported(api.importCsv(`TAGS,HWID\n,${p}w\n`))).toMatchObject({ updated: 1 });
      expect((await api.get(`${p}w`)).json()).toMatchObject({ tags: [], status: 'withdrawn', attributes: { keep: true } });
      // one HW id twice in one file: rows apply in order, the later wins
      expect(await api.imported(api.importCsv(`hwid,tags\n${p}twice,a\n${p}twice,b\n`))).toMatchObject({ created: 1, updated: 1 });
      expect((await api.get(`${p}twice`)).json<DeviceRecord>().tags).toEqual(['b']);
    });

    it('dry_run=true counts and lists what the import would change (tags before and after) and stores nothing', async () => {
      const p = prefix();
      expect(await api.imported(api.importCsv(`hwid,tags\n${p}1,a\n${p}2,b\n`))).toMatchObject({ created: 2 });
      await api.putTags(`${p}1`, { tags: ['a'] });
      const before = await listAll(p);
      const csv = `hwid,tags\n${p}1,a\n${p}2,c b2\nbad id,x\n${p}3,x\n${p}4,\n`;
      const preview = await api.imported(api.importCsv(csv, 'text/csv', { dry_run: true }));
      expect(preview).toEqual({
        created: 2,
        updated: 1,
        unchanged: 1,
        errors: [{ line: 4, hwid: 'bad id', error: HWID_RULE }],
        error_count: 1,
        changes: [
          { line: 3, hwid: `${p}2`, change: 'update', tags_before: ['b'], tags_after: ['b2', 'c'], attributes_changed: false },
          { line: 5, hwid: `${p}3`, change: 'create', tags_before: null, tags_after: ['x'], attributes_changed: false },
          { line: 6, hwid: `${p}4`, change: 'create', tags_before: null, tags_after: [], attributes_changed: false },
        ],
      });
      // Nothing stored, nothing touched.
      expect(await listAll(p)).toEqual(before);
      // The import itself then does what the dry run said (and lists no changes).
      const applied = await api.imported(api.importCsv(csv));
      expect(applied).toEqual({ created: 2, updated: 1, unchanged: 1, errors: preview.errors, error_count: 1 });
      expect((await api.get(`${p}2`)).json<DeviceRecord>().tags).toEqual(['b2', 'c']);
      // JSON: attributes count as a change; a file naming no tags keeps them.
      const json = [{ hwid: `${p}1`, attributes: { site: 'Berlin' } }, { hwid: `${p}2` }];
      expect(await api.imported(api.importJson(json, { dry_run: 'true' }))).toEqual({
        created: 0,
        updated: 1,
        unchanged: 1,
        errors: [],
        error_count: 0,
        changes: [{ line: 1, hwid: `${p}1`, change: 'update', tags_before: ['a'], tags_after: ['a'], attributes_changed: true }],
      });
      expect((await api.get(`${p}1`)).json<DeviceRecord>().attributes).toEqual({});
      expectProblem(await api.importCsv(csv, 'text/csv', { dry_run: 'maybe' }), 400, 'dry_run must be true or false');
      expect((await api.get(`${p}3`)).json<DeviceRecord>().tags).toEqual(['x']);
    });

    it('refuses a file whose header is not hwid[,tags], or that is empty, with 400 (nothing applied)', async () => {
      const p = prefix();
      expectProblem(await api.importCsv(`id,tags\n${p}x,a\n`), 400, {
        detail: /^the CSV header must name the columns hwid and tags.*unknown column "id"/,
        code: 'device_import_csv_header_invalid',
      });
      expectProblem(await api.importCsv(`hwid,tags,attributes\n${p}x,a,{}\n`), 400, /unknown column "attributes"/);
      expectProblem(await api.importCsv(`tags\na\n`), 400, /hwid is missing/);
      expectProblem(await api.importCsv(''), 400, {
        detail: 'CSV body is empty: the first line must be the header, e.g. "hwid,tags"',
        code: 'device_import_csv_empty',
      });
      expect(await listAll(p)).toEqual([]);
    });
  });

  describe('JSON', () => {
    it('applies the good elements and reports the bad ones by position (from 1)', async () => {
      const p = prefix();
      const body = [
        { hwid: `${p}1`, tags: ['b', 'a'], attributes: { site: 'x' } },
        { hwid: `${p}2` },
        'not an object',
        { hwid: `${p} 3` },
        { hwid: `${p}4`, keys: [] },
        { hwid: `${p}5`, tags: 'a' },
        { hwid: `${p}6`, tags: ['ok', 'no/slash'] },
        { hwid: `${p}7`, attributes: [] },
        { tags: ['a'] },
        { hwid: `${p}8`, attributes: { big: 'x'.repeat(9000) } },
      ];
      const result = await api.imported(api.importJson(body));
      expect(result).toEqual({
        created: 2,
        updated: 0,
        unchanged: 0,
        errors: [
          { line: 3, hwid: null, error: 'each element must be an object {hwid, tags?, attributes?}' },
          { line: 4, hwid: `${p} 3`, error: HWID_RULE },
          { line: 5, hwid: `${p}4`, error: 'unknown property "keys" (allowed: hwid, tags, attributes)' },
          { line: 6, hwid: `${p}5`, error: 'tags must be an array of tag names' },
          { line: 7, hwid: `${p}6`, error: `${TAG_RULE} (got "no/slash")` },
          { line: 8, hwid: `${p}7`, error: 'attributes must be a JSON object of at most 8192 bytes' },
          { line: 9, hwid: null, error: 'hwid is required' },
          { line: 10, hwid: `${p}8`, error: 'attributes must be a JSON object of at most 8192 bytes' },
        ],
        error_count: 8,
      });
      expect((await listAll(p)).map((d) => [d.hwid, d.tags, d.attributes])).toEqual([
        [`${p}1`, ['a', 'b'], { site: 'x' }],
        [`${p}2`, [], {}],
      ]);
      // again: unchanged; absent fields keep what is stored
      expect(await api.imported(api.importJson(body))).toMatchObject({ created: 0, updated: 0, unchanged: 2, error_count: 8 });
      expect(await api.imported(api.importJson([{ hwid: `${p}1` }]))).toMatchObject({ unchanged: 1 });
      expect(await api.imported(api.importJson([{ hwid: `${p}1`, attributes: { site: 'y' } }]))).toMatchObject({ updated: 1 });
      expect((await api.get(`${p}1`)).json()).toMatchObject({ tags: ['a', 'b'], attributes: { site: 'y' } });
    });

    it('an element that is not JSON is reported and the rest applied; a broken array stops with a last error; a non-array is 400', async () => {
      const p = prefix();
      const text = `[{"hwid":"${p}1"}, {hwid: "x"}, {"hwid":"${p}2"}`;
      const result = await api.imported(api.importJson(text));
      expect(result).toMatchObject({ created: 2, error_count: 2 });
      expect(result.errors).toEqual([
        { line: 2, hwid: null, error: expect.stringMatching(/^not valid JSON: /) },
        { line: 4, hwid: null, error: 'malformed JSON array: the body ends before the closing bracket' },
      ]);
      expectProblem(await api.importJson({ hwid: `${p}x` }), 400, {
        detail: 'import body must be a JSON array of devices',
        code: 'device_import_not_json_array',
      });
      expectProblem(await api.importJson('"text"'), 400, 'import body must be a JSON array of devices');
      expectProblem(await api.importJson(''), 400, 'import body must be a JSON array of devices');
      expect(await api.imported(api.importJson([]))).toEqual({ created: 0, updated: 0, unchanged: 0, errors: [], error_count: 0 });
    });
  });

  describe('limits and rules', () => {
    it('lists at most 1000 errors and counts them all', async () => {
      const csv = `hwid,tags\n${Array.from({ length: 1200 }, (_, i) => `bad id ${i},x`).join('\n')}\n`;
      const result = await api.imported(api.importCsv(csv));
      expect(result.error_count).toBe(1200);
      expect(result.errors).toHaveLength(1000);
      expect(result.errors[0]).toEqual({ line: 2, hwid: 'bad id 0', error: HWID_RULE });
      expect(result.errors[999]).toEqual({ line: 1001, hwid: 'bad id 999', error: HWID_RULE });
    });

    it('imports 5,000 rows in one request, then finds them by tag', async () => {
      const p = prefix();
      const csv = `hwid,tags\n${Array.from({ length: 5000 }, (_, i) => `${p}${String(i).padStart(5, '0')},${i % 2 ? 'odd' : 'even'} ${p}all`).join('\n')}\n`;
      expect(await api.imported(api.importCsv(csv))).toEqual({ created: 5000, updated: 0, unchanged: 0, errors: [], error_count: 0 });
      const page = (await api.list({ tag: [`${p}all`], limit: 500, offset: 4900 })).json();
      expect(page.items).toHaveLength(100);
      expect(page.items[0].hwid).toBe(`${p}04900`);
      expect(page.next_offset).toBeNull();
      const both = (await api.list({ tag: ['odd', `${p}all`], tag_mode: 'all', limit: 2 })).json();
      expect(both.items.map((d: DeviceRecord) => d.hwid)).toEqual([`${p}00001`, `${p}00003`]);
    });

    it('accepts only text/csv and application/json (415, before reading the body), refuses more than 64 MiB (413)', async () => {
      expectProblem(await api.importCsv('<devices/>', 'application/xml'), 415, 'body must be text/csv or application/json');
      expectProblem(await api.importCsv('hwid\nx\n', 'text/plain'), 415, 'body must be text/csv or application/json');
      expect((await api.importCsv(`hwid\n${prefix()}x\n`, 'text/csv; charset=utf-8')).status).toBe(200);
      const tooLarge = await streamingRequest('POST', `${rt.baseUrl}/devices/import`, {
        headers: { authorization: `Bearer ${customer.full}`, 'content-type': 'text/csv' },
        declaredLength: IMPORT_MAX_BYTES + 1,
        chunks: [Buffer.from('hwid\n')],
      });
      expectProblem(tooLarge, 413, `body larger than the limit of ${IMPORT_MAX_BYTES} bytes`);
    });

    it('needs devices:write (403), and an administrator imports for any customer with customer=<domain>', async () => {
      expectProblem(await api.as(customer.readOnly).importCsv('hwid\nx\n'), 403, 'missing scope devices:write');
      expectProblem(await api.as(customer.uploader).importJson([]), 403, 'missing scope devices:write');
      expect((await api.as(undefined).importJson([])).status).toBe(401);
      const p = prefix();
      const admin = await rt.adminToken();
      expect(await api.imported(api.as(admin, customer.domain).importCsv(`hwid,tags\n${p}adm,by-admin\n`))).toMatchObject({ created: 1 });
      expect((await api.get(`${p}adm`)).json<DeviceRecord>().tags).toEqual(['by-admin']);
    });
  });
});
