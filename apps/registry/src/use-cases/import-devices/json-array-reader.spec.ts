import { describe, expect, it } from '@jest/globals';
import { ErrorCode } from '@app/contracts';
import { asAsync, chunked, collect } from '../../../test/factories.js';
import { type JsonElement, readJsonArray } from './json-array-reader.js';

const read = (text: string, options: { chunk?: number; max?: number } = {}): Promise<JsonElement[]> =>
  collect(readJsonArray(asAsync(chunked(text, options.chunk ?? 1 << 16)), { maxElementChars: options.max ?? 1000 }));

describe('readJsonArray', () => {
  it('yields each element with its position from 1', async () => {
    const text = ' [ {"hwid":"a","tags":["x"]}, {"hwid":"b","attributes":{"n":[1,{"m":"]}"}]}} ,"s", 3, null ]\n';
    expect(await read(text)).toEqual([
      { line: 1, value: { hwid: 'a', tags: ['x'] } },
      { line: 2, value: { hwid: 'b', attributes: { n: [1, { m: ']}' }] } } },
      { line: 3, value: 's' },
      { line: 4, value: 3 },
      { line: 5, value: null },
    ]);
    expect(await read('[]')).toEqual([]);
    expect(await read('\ufeff[ ]')).toEqual([]);
  });

  it('handles strings with escaped quotes, backslashes, brackets and commas across any chunk boundaries', async () => {
    const text = '[{"hwid":"q\\"x,]\\\\","a":"日本\\u0041"},{"hwid":"b"}]';
    const whole = await read(text);
    expect(whole).toEqual([
      { line: 1, value: { hwid: 'q"x,]\\', a: '日本A' } },
      { line: 2, value: { hwid: 'b' } },
    ]);
    for (const size of [1, 2, 3, 5]) expect(await read(text, { chunk: size })).toEqual(whole);
  });

  it('refuses a body that is not an array with a 400 before anything is yielded', async () => {
    for (const body of ['{"hwid":"a"}', 'hwid,tags\na,b', '', '   ']) {
      await expect(read(body)).rejects.toMatchObject({
        code: ErrorCode.BadRequest,
        reason: 'device_import_not_json_array',
        message: 'import body must be a JSON array of devices',
      });
    }
  });

  it('reports an element that is not valid JSON and reads on', async () => {
    const elements = await read('[{"hwid":"a"},{hwid:"b"},{"hwid":"c"}]');
    expect(elements[0]).toEqual({ line: 1, value: { hwid: 'a' } });
    expect(elements[1]).toMatchObject({ line: 2, error: expect.stringMatching(/^not valid JSON: /) });
    expect(elements[2]).toEqual({ line: 3, value: { hwid: 'c' } });
  });

  it('skips an element longer than the limit and reports it', async () => {
    const big = JSON.stringify({ hwid: 'big', attributes: { s: 'x'.repeat(100) } });
    expect(await read(`[{"hwid":"a"},${big},{"hwid":"c"}]`, { max: 50, chunk: 9 })).toEqual([
      { line: 1, value: { hwid: 'a' } },
      { line: 2, error: 'element longer than 50 characters' },
      { line: 3, value: { hwid: 'c' } },
    ]);
  });

  it('ends with a fatal error entry when the array itself is broken, after the elements read so far', async () => {
    // an unfinished element is not read; a finished one without the closing bracket is
    expect(await read('[{"hwid":"a"},{"hwid":"b"')).toEqual([
      { line: 1, value: { hwid: 'a' } },
      { line: 2, error: 'malformed JSON array: the body ends before the closing bracket', fatal: true },
    ]);
    expect(await read('[{"hwid":"a"},{"hwid":"b"} ')).toEqual([
      { line: 1, value: { hwid: 'a' } },
      { line: 2, value: { hwid: 'b' } },
      { line: 3, error: 'malformed JSON array: the body ends before the closing bracket', fatal: true },
    ]);
    expect(await read('[{"hwid":"a"}] x')).toEqual([
      { line: 1, value: { hwid: 'a' } },
      { line: 2, error: 'malformed JSON array: content after the closing bracket', fatal: true },
    ]);
    expect(await read('[{"hwid":"a"},]')).toEqual([
      { line: 1, value: { hwid: 'a' } },
      { line: 2, error: 'malformed JSON array: unexpected "]" where an element was expected', fatal: true },
    ]);
  });
});
