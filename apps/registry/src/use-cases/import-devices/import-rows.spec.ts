import { describe, expect, it } from '@jest/globals';
import { ATTRIBUTES_RULE, ErrorCode, HWID_RULE, TAG_RULE, TAGS_COUNT_RULE } from '@app/contracts';
import { csvColumns, rowFromCsv, rowFromJson } from './import-rows.js';

describe('CSV header', () => {
  it('names hwid and optionally tags, in any order, case and spaces ignored', () => {
    expect(csvColumns(['hwid', 'tags'])).toEqual({ hwid: 0, tags: 1, count: 2 });
    expect(csvColumns([' Tags ', 'HWID'])).toEqual({ hwid: 1, tags: 0, count: 2 });
    expect(csvColumns(['hwid'])).toEqual({ hwid: 0, tags: null, count: 1 });
  });

  it('refuses unknown, repeated or missing columns with a 400', () => {
    for (const header of [['hwid', 'tags', 'attributes'], ['hwid', 'hwid'], ['tags'], ['id', 'tags']]) {
      expect(() => csvColumns(header)).toThrow(
        expect.objectContaining({
          code: ErrorCode.BadRequest,
          reason: 'device_import_csv_header_invalid',
          message: expect.stringMatching(/^the CSV header must name the columns hwid and tags/),
        }),
      );
    }
  });
});

describe('CSV rows', () => {
  const both = csvColumns(['hwid', 'tags']);

  it('splits tags on spaces into a sorted distinct set; an empty cell is no tags; without a tags column tags are kept', () => {
    expect(rowFromCsv(both, 2, ['dev-1', ' beta  alpha beta '], true)).toEqual({ line: 2, hwid: 'dev-1', tags: ['alpha', 'beta'], attributes: null });
    expect(rowFromCsv(both, 3, ['dev-1', ''], true)).toEqual({ line: 3, hwid: 'dev-1', tags: [], attributes: null });
    expect(rowFromCsv(csvColumns(['hwid']), 4, ['a/b?c'], false)).toEqual({ line: 4, hwid: 'a/b?c', tags: null, attributes: null });
  });

  it('reports the rule a row breaks, with its line and HW id', () => {
    expect(rowFromCsv(both, 5, ['bad id', 'x'], true)).toEqual({ line: 5, hwid: 'bad id', error: HWID_RULE });
    expect(rowFromCsv(both, 6, ['', 'x'], true)).toEqual({ line: 6, hwid: '', error: HWID_RULE });
    expect(rowFromCsv(both, 7, ['ok', 'good b/d'], true)).toEqual({ line: 7, hwid: 'ok', error: `${TAG_RULE} (got "b/d")` });
    expect(rowFromCsv(both, 8, ['ok'], true)).toEqual({ line: 8, hwid: 'ok', error: 'expected 2 fields, found 1' });
    expect(rowFromCsv(both, 9, ['ok', 'a', 'b'], true)).toEqual({ line: 9, hwid: 'ok', error: 'expected 2 fields, found 3' });
    const many = Array.from({ length: 65 }, (_, i) => `t${i}`).join(' ');
    expect(rowFromCsv(both, 10, ['ok', many], true)).toEqual({ line: 10, hwid: 'ok', error: TAGS_COUNT_RULE });
    expect(rowFromCsv(both, 11, ['ok', 'a'], false)).toEqual({ line: 11, hwid: 'ok', error: 'setting tags needs scope tags:write' });
    expect(rowFromCsv(both, 12, ['x'.repeat(300), 'a'], true)).toEqual({ line: 12, hwid: 'x'.repeat(100), error: HWID_RULE });
  });
});

describe('JSON rows', () => {
  it('takes {hwid, tags?, attributes?}; absent tags and attributes are kept (null)', () => {
    expect(rowFromJson(1, { hwid: 'A', tags: ['b', 'a'], attributes: { m: 1 } }, true)).toEqual({ line: 1, hwid: 'A', tags: ['a', 'b'], attributes: { m: 1 } });
    expect(rowFromJson(2, { hwid: 'A' }, false)).toEqual({ line: 2, hwid: 'A', tags: null, attributes: null });
    expect(rowFromJson(3, { hwid: 'A', tags: [] }, true)).toEqual({ line: 3, hwid: 'A', tags: [], attributes: null });
  });

  it('reports what is wrong with an element', () => {
    expect(rowFromJson(1, 'A', true)).toEqual({ line: 1, hwid: null, error: 'each element must be an object {hwid, tags?, attributes?}' });
    expect(rowFromJson(2, {}, true)).toEqual({ line: 2, hwid: null, error: 'hwid is required' });
    expect(rowFromJson(3, { hwid: 7 }, true)).toEqual({ line: 3, hwid: null, error: HWID_RULE });
    expect(rowFromJson(4, { hwid: 'A', keys: [] }, true)).toEqual({ line: 4, hwid: 'A', error: 'unknown property "keys" (allowed: hwid, tags, attributes)' });
    expect(rowFromJson(5, { hwid: 'A', tags: 'x' }, true)).toEqual({ line: 5, hwid: 'A', error: 'tags must be an array of tag names' });
    expect(rowFromJson(6, { hwid: 'A', tags: ['-x'] }, true)).toEqual({ line: 6, hwid: 'A', error: `${TAG_RULE} (got "-x")` });
    expect(rowFromJson(7, { hwid: 'A', attributes: [1] }, true)).toEqual({ line: 7, hwid: 'A', error: ATTRIBUTES_RULE });
    expect(rowFromJson(8, { hwid: 'A', tags: ['a'] }, false)).toEqual({ line: 8, hwid: 'A', error: 'setting tags needs scope tags:write' });
  });
});
