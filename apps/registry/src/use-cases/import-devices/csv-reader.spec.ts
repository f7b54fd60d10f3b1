import { describe, expect, it } from '@jest/globals';
import { asAsync, chunked, collect } from '../../../test/factories.js';
import { type CsvRecord, readCsvRecords } from './csv-reader.js';

const read = (text: string, options: { chunk?: number; max?: number } = {}): Promise<CsvRecord[]> =>
  collect(readCsvRecords(asAsync(chunked(text, options.chunk ?? 1 << 16)), { maxRecordChars: options.max ?? 1000 }));

describe('readCsvRecords', () => {
  it('reads records with their line numbers (the header is line 1)', async () => {
    expect(await read('hwid,tags\nA,x y\nB,\n')).toEqual([
      { line: 1, fields: ['hwid', 'tags'] },
      { line: 2, fields: ['A', 'x y'] },
      { line: 3, fields: ['B', ''] },
    ]);
  });

  it('takes LF, CRLF and CR line ends, a missing final line end, and skips a byte order mark and blank lines', async () => {
    expect(await read('\ufeffhwid,tags\r\nA,x\r\n\r\nB,y\rC,z')).toEqual([
      { line: 1, fields: ['hwid', 'tags'] },
      { line: 2, fields: ['A', 'x'] },
      { line: 4, fields: ['B', 'y'] },
      { line: 5, fields: ['C', 'z'] },
    ]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks; lines keep counting inside them', async () => {
    const text = 'hwid,tags\n"a,b","x"\n"say ""hi""",y\n"multi\nline\r\nfield",z\nlast,w\n""\n';
    expect(await read(text)).toEqual([
      { line: 1, fields: ['hwid', 'tags'] },
      { line: 2, fields: ['a,b', 'x'] },
      { line: 3, fields: ['say "hi"', 'y'] },
      { line: 4, fields: ['multi\nline\r\nfield', 'z'] },
      { line: 7, fields: ['last', 'w'] },
      { line: 8, fields: [''] },
    ]);
  });

  it('gives the same records whatever the chunk boundaries (also inside CRLF, quotes and multi-byte characters)', async () => {
    const text = '\ufeffhwid,tags\r\n"q""uo,te",é日\r\n"x\r\ny",\r\nplain,a b\r\n';
    const whole = await read(text);
    for (const size of [1, 2, 3, 5, 7]) expect(await read(text, { chunk: size })).toEqual(whole);
    expect(whole).toHaveLength(4);
  });

  it('reports a malformed record at its line and goes on with the next one', async () => {
    expect(await read('hwid,tags\nab"c,x\n"q"x,y\nok,1\n"unterminated,z\nnever')).toEqual([
      { line: 1, fields: ['hwid', 'tags'] },
      { line: 2, error: 'quote inside an unquoted field (quote the whole field and double the quote)' },
      { line: 3, error: 'unexpected character after a closing quote' },
      { line: 4, fields: ['ok', '1'] },
      { line: 5, error: 'unterminated quoted field' },
    ]);
  });

  it('skips a record longer than the limit (quoted line breaks included) and reports it', async () => {
    const long = 'x'.repeat(50);
    expect(await read(`hwid\n${long}\n"${long}\n${long}"\nshort\n`, { max: 20, chunk: 7 })).toEqual([
      { line: 1, fields: ['hwid'] },
      { line: 2, error: 'record longer than 20 characters' },
      { line: 3, error: 'record longer than 20 characters' },
      { line: 5, fields: ['short'] },
    ]);
  });

  it('holds one record at a time: 100,000 rows stream through', async () => {
    async function* rows() {
      yield Buffer.from('hwid,tags\n');
      for (let i = 0; i < 100_000; i++) yield Buffer.from(`dev-${i},a b\n`);
    }
    let count = 0;
    let last: CsvRecord | undefined;
    for await (const record of readCsvRecords(rows(), { maxRecordChars: 100 })) {
      count++;
      last = record;
    }
    expect(count).toBe(100_001);
    expect(last).toEqual({ line: 100_001, fields: ['dev-99999', 'a b'] });
  });
});
