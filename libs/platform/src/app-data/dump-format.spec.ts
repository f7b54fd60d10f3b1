import { describe, expect, it } from '@jest/globals';
import { AppDataDumpProblem, AppDataDumpRefused } from '@app/contracts';
import { DUMP_FORMAT, DumpReader, END_OF_ROWS, jsonLine } from './dump-format.js';

const header = jsonLine({ format: DUMP_FORMAT, version: 1, app: 'registry', runId: 'r', migration: null, createdAt: '2026-11-26T00:00:00.000Z' });
const rowsA = 'a\t1\n\\\\.\t\\N\nc\t\\.x\n'; // a value `\.` (escaped as `\\.`) and one that starts with `\.`
const dump = Buffer.concat([
  header,
  jsonLine({ table: 'device', columns: ['hwid', 'n'] }),
  Buffer.from(rowsA),
  END_OF_ROWS,
  jsonLine({ table: 'device_tag', columns: ['tag'] }),
  END_OF_ROWS,
  jsonLine({
    end: true,
    tables: [
      { table: 'device', rows: 3 },
      { table: 'device_tag', rows: 0 },
    ],
  }),
]);

async function* inPieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function readAll(bytes: Buffer, size: number): Promise<{ table: string; rows: number; text: string }[]> {
  const reader = new DumpReader(inPieces(bytes, size), 'registry');
  await reader.readHeader();
  const tables: { table: string; rows: number; text: string }[] = [];
  for await (const section of reader.sections()) {
    let text = '';
    for await (const chunk of section.chunks) text += chunk.toString('utf8');
    tables.push({ table: section.header.table, rows: section.rows(), text });
  }
  return tables;
}

describe('DumpReader', () => {
  it('finds every section whatever the chunk boundaries (down to one byte)', async () => {
    for (const size of [1, 2, 3, 5, 7, 64, dump.length]) {
      expect(await readAll(dump, size)).toEqual([
        { table: 'device', rows: 3, text: rowsA },
        { table: 'device_tag', rows: 0, text: '' },
      ]);
    }
  });

  it('refuses a truncated dump, a wrong trailer and another app', async () => {
    const problem = async (bytes: Buffer, app: 'registry' | 'firmware' = 'registry') => {
      try {
        const reader = new DumpReader(inPieces(bytes, 4), app);
        await reader.readHeader();
        for await (const section of reader.sections()) for await (const chunk of section.chunks) void chunk;
      } catch (err) {
        return err instanceof AppDataDumpRefused ? err.problem : err;
      }
      return 'accepted';
    };
    expect(await problem(dump)).toBe('accepted');
    expect(await problem(dump.subarray(0, dump.indexOf('c\t')))).toBe(AppDataDumpProblem.Unreadable);
    expect(await problem(dump.subarray(0, dump.length - 1))).toBe(AppDataDumpProblem.Unreadable);
    expect(await problem(Buffer.from(dump.toString().replace('"rows":3', '"rows":4')))).toBe(AppDataDumpProblem.Unreadable);
    expect(await problem(dump, 'firmware')).toBe(AppDataDumpProblem.Unreadable);
  });
});
