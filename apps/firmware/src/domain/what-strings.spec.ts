import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { scanWhatStrings, scanWhatStringsInBuffer, WHAT_TEXT_MAX_BYTES, WhatStringScanner } from './what-strings.js';
import { parseBuildDate, parseWhatText } from './what-string-parse.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

/** Noise without any '@', so that markers come only from the test. */
function noise(size: number): Buffer {
  const data = randomBytes(size);
  for (let i = 0; i < data.length; i++) if (data[i] === 0x40) data[i] = 0x41;
  return data;
}

/** The same scan through the streaming scanner with chunks cut at the given sizes. */
function scanInChunks(data: Buffer, sizes: number[]) {
  const scanner = new WhatStringScanner();
  let at = 0;
  let i = 0;
  while (at < data.length) {
    const size = Math.max(1, sizes[i++ % sizes.length] ?? 1);
    scanner.push(data.subarray(at, at + size));
    at += size;
  }
  return scanner.finish();
}

/** A straightforward reference: every marker, its text up to a stop byte, the next marker or 256 bytes. */
function reference(data: Buffer) {
  const text = data.toString('latin1');
  const found: { index: number; offset: number; text: string }[] = [];
  let at = text.indexOf('@(#)');
  while (at !== -1) {
    const next = text.indexOf('@(#)', at + 4);
    let end = at + 4;
    while (end < text.length && (next === -1 || end < next)) {
      const code = text.charCodeAt(end);
      if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x3e || code === 0x5c) break;
      end++;
    }
    found.push({ index: found.length, offset: at, text: text.slice(at + 4, Math.min(end, at + 4 + WHAT_TEXT_MAX_BYTES)) });
    at = next;
  }
  return { found, total: found.length, sizeBytes: data.length };
}

describe('what strings', () => {
  it('finds every marker in binary noise, with offsets and texts, in order', () => {
    const data = Buffer.concat([noise(1000), bytes('@(#)1.2.3, 2026-11-20T10:00:00Z, AFI\0'), noise(5000), bytes('@(#)garbage'), bytes('\n'), noise(10)]);
    const scan = scanWhatStringsInBuffer(data);
    expect(scan.total).toBe(2);
    expect(scan.found).toEqual([
      { index: 0, offset: 1000, text: '1.2.3, 2026-11-20T10:00:00Z, AFI' },
      { index: 1, offset: 1000 + 37 + 5000, text: 'garbage' },
    ]);
    expect(scan.sizeBytes).toBe(data.length);
  });

  it('finds a marker straddling every possible chunk boundary', () => {
    const what = bytes('@(#)2.0.0-rc1, 2026-01-02, efi');
    const data = Buffer.concat([noise(20), what, bytes('"'), noise(20)]);
    for (let cut = 1; cut < data.length; cut++) {
      const scanner = new WhatStringScanner();
      scanner.push(data.subarray(0, cut));
      scanner.push(data.subarray(cut));
      const scan = scanner.finish();
      expect([cut, scan.found]).toEqual([cut, [{ index: 0, offset: 20, text: '2.0.0-rc1, 2026-01-02, efi' }]]);
    }
    // one byte at a time
    expect(scanInChunks(data, [1]).found).toEqual([{ index: 0, offset: 20, text: '2.0.0-rc1, 2026-01-02, efi' }]);
  });

  it('finds a marker at the very end of the binary, with text or without', () => {
    expect(scanWhatStringsInBuffer(Buffer.concat([noise(100), bytes('@(#)3.1, 2026-11-20, MFI')])).found).toEqual([
      { index: 0, offset: 100, text: '3.1, 2026-11-20, MFI' },
    ]);
    expect(scanWhatStringsInBuffer(Buffer.concat([noise(100), bytes('@(#)')])).found).toEqual([{ index: 0, offset: 100, text: '' }]);
    expect(scanWhatStringsInBuffer(Buffer.concat([noise(100), bytes('@(#')])).total).toBe(0);
    expect(scanInChunks(Buffer.concat([noise(7), bytes('@(#)')]), [3]).found).toEqual([{ index: 0, offset: 7, text: '' }]);
  });

  it('counts malformed and empty markers and stops a text at the next marker', () => {
    const scan = scanWhatStringsInBuffer(bytes('@(#)@(#)1.0, 2026-11-20, AFI>@(#)\xff@(#) spaced , 2026-11-20 , afi '));
    expect(scan.found.map((f) => f.text)).toEqual(['', '1.0, 2026-11-20, AFI', '', ' spaced , 2026-11-20 , afi ']);
    expect(parseWhatText(scan.found[0].text).ok).toBe(false);
    expect(parseWhatText(scan.found[3].text)).toEqual({
      ok: true,
      values: { fwVersion: 'spaced', buildDate: new Date('2026-11-20T00:00:00Z'), fwType: 'AFI' },
    });
  });

  it('keeps at most 256 bytes of a text, and still finds a marker right after it', () => {
    const long = 'x'.repeat(400);
    const scan = scanWhatStringsInBuffer(bytes(`@(#)${long}@(#)1, 2026-11-20, AFI`));
    expect(scan.found[0].text).toBe('x'.repeat(WHAT_TEXT_MAX_BYTES));
    expect(scan.found[1]).toEqual({ index: 1, offset: 404, text: '1, 2026-11-20, AFI' });
  });

  it('records the first 1000 what strings but counts all', () => {
    const data = bytes('@(#)1, 2026-11-20, AFI\n'.repeat(1500));
    const scan = scanWhatStringsInBuffer(data);
    expect(scan.total).toBe(1500);
    expect(scan.found).toHaveLength(1000);
    expect(scan.found[999].index).toBe(999);
  });

  it('scans a stream chunk by chunk (as read back from the object store)', async () => {
    const data = Buffer.concat([noise(200_000), bytes('@(#)9.9.9, 2026-11-20T23:59:59.5+01:00, AFI\0'), noise(300_000)]);
    const chunks: Buffer[] = [];
    for (let at = 0; at < data.length; at += 65_536) chunks.push(data.subarray(at, at + 65_536));
    const scan = await scanWhatStrings(Readable.from(chunks));
    expect(scan.found).toEqual([{ index: 0, offset: 200_000, text: '9.9.9, 2026-11-20T23:59:59.5+01:00, AFI' }]);
    expect(scan.sizeBytes).toBe(data.length);
  });

  it('gives the same answer as the reference for any content and any chunking', () => {
    const alphabet = fc.constantFrom(...['@', '(', '#', ')', '@(#)', '@(#', '1.0', ', ', '2026-11-20', 'AFI', '\0', '\n', '"', '\xff', 'x', ' ']);
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 10 }), (parts, sizes) => {
        const data = bytes(parts.join(''));
        const expected = reference(data);
        expect(scanWhatStringsInBuffer(data)).toEqual(expected);
        expect(scanInChunks(data, sizes)).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('what string text', () => {
  it('parses <fw_version>, <build_date>, <fw_type>', () => {
    expect(parseWhatText('1.2.3, 2026-11-20T10:00:00Z, AFI')).toEqual({
      ok: true,
      values: { fwVersion: '1.2.3', buildDate: new Date('2026-11-20T10:00:00Z'), fwType: 'AFI' },
    });
    expect(parseWhatText('1.2.3,2026-11-20T10:00:00.250+02:00,mfi')).toEqual({
      ok: true,
      values: { fwVersion: '1.2.3', buildDate: new Date('2026-11-20T08:00:00.250Z'), fwType: 'MFI' },
    });
  });

  it('explains what is wrong', () => {
    expect(parseWhatText('1.2.3 2026-11-20 AFI')).toMatchObject({ ok: false, error: expect.stringContaining('1 comma-separated') });
    expect(parseWhatText('1.2.3, yesterday, AFI')).toMatchObject({ ok: false, error: expect.stringContaining('build_date') });
    // Dates the database cannot store: year 0000, and a time past 9999 once moved to UTC.
    expect(parseWhatText('1.2.3, 0000-06-01, AFI')).toMatchObject({ ok: false, error: expect.stringContaining('must lie between 0001-01-01') });
    expect(parseWhatText('1.2.3, 9999-12-31T23:30:00-01:00, AFI')).toMatchObject({ ok: false, error: expect.stringContaining('must lie between') });
    expect(parseWhatText('1.2.3, 0001-01-01, AFI')).toMatchObject({ ok: true });
    expect(parseWhatText('1.2.3, 2026-11-20, XFI')).toMatchObject({ ok: false, error: expect.stringContaining('fw_type') });
    expect(parseWhatText('1 2, 2026-11-20, AFI')).toMatchObject({ ok: false, error: expect.stringContaining('fw_version') });
    expect(parseWhatText(', 2026-11-20, AFI')).toMatchObject({ ok: false });
    expect(parseWhatText('1, 2026-11-20, AFI, extra')).toMatchObject({ ok: false });
  });

  it('checks the calendar', () => {
    expect(parseBuildDate('2026-02-30')).toBeNull();
    expect(parseBuildDate('2024-02-29')).toEqual(new Date('2024-02-29T00:00:00Z'));
    expect(parseBuildDate('2026-11-20T24:00:00Z')).toBeNull();
    expect(parseBuildDate('2026-11-20T10:00:00')).toBeNull(); // no offset: not RFC 3339
  });
});
