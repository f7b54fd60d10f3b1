import { describe, expect, it } from '@jest/globals';
import type { RequestLogEntry } from '@app/contracts';
import { makeRequestLogEntry } from '../../test/factories.js';
import { toRequestLogRow } from './request-log-entry.js';

describe('toRequestLogRow', () => {
  it('keeps every field of a well-formed entry', () => {
    const entry = makeRequestLogEntry({ ts: '2026-11-21T12:00:00.5+01:00', domain: null, actor: null, refusal: 'customer_not_found' });
    expect(toRequestLogRow(entry)).toEqual({ ...entry, ts: '2026-11-21T11:00:00.500Z' });
    // refusal is optional: absent, it is stored as null.
    expect(toRequestLogRow(makeRequestLogEntry({ refusal: undefined }))!.refusal).toBeNull();
  });

  it('drops an entry without a usable timestamp', () => {
    expect(toRequestLogRow(makeRequestLogEntry({ ts: 'yesterday' }))).toBeNull();
    expect(toRequestLogRow({ ...makeRequestLogEntry(), ts: undefined } as unknown as RequestLogEntry)).toBeNull();
  });

  it('makes values PostgreSQL accepts: NUL escaped, bounded lengths, non-negative integers', () => {
    const row = toRequestLogRow(
      makeRequestLogEntry({ path: '/x\u0000y', user_agent: 'u'.repeat(5000), duration_ms: 12.6, bytes_in: -5, status: Number.NaN, domain: '' }),
    )!;
    expect(row.path).toBe('/x\\u0000y');
    expect(row.user_agent).toHaveLength(1024);
    expect(row.duration_ms).toBe(13);
    expect(row.bytes_in).toBe(0);
    expect(row.status).toBe(0);
    expect(row.domain).toBeNull();
  });

  it('escapes lone UTF-16 surrogates (not text in UTF-8) and keeps pairs', () => {
    const row = toRequestLogRow(makeRequestLogEntry({ user_agent: 'a\uD800b\uDC00c\uD83D\uDE00', actor: 'x\uDBFF' }))!;
    expect(row.user_agent).toBe('a\\ud800b\\udc00c\uD83D\uDE00');
    expect(row.actor).toBe('x\\udbff');
  });

  it('does not cut a surrogate pair in two at the length limit', () => {
    const row = toRequestLogRow(makeRequestLogEntry({ user_agent: `${'u'.repeat(1023)}\uD83D\uDE00` }))!;
    expect(row.user_agent).toBe('u'.repeat(1023));
  });

  it('checks a timestamp again after a different one (the last accepted one is remembered)', () => {
    expect(toRequestLogRow(makeRequestLogEntry({ ts: '2026-11-21T12:00:00.000Z' }))?.ts).toBe('2026-11-21T12:00:00.000Z');
    expect(toRequestLogRow(makeRequestLogEntry({ ts: '2026-13-21T12:00:00.000Z' }))).toBeNull();
    expect(toRequestLogRow(makeRequestLogEntry({ ts: '2026-11-21T12:00:00.000Z' }))?.ts).toBe('2026-11-21T12:00:00.000Z');
  });

  it('checks the time of day of a timestamp on the day of the last accepted one', () => {
    expect(toRequestLogRow(makeRequestLogEntry({ ts: '2026-11-21T12:00:00.000Z' }))?.ts).toBe('2026-11-21T12:00:00.000Z');
    expect(toRequestLogRow(makeRequestLogEntry({ ts: '2026-11-21T23:59:59.999Z' }))?.ts).toBe('2026-11-21T23:59:59.999Z');
    expect(toRequestLogRow(makeRequestLogEntry({ ts: '2026-11-21T12:60:00.000Z' }))).toBeNull();
    expect(toRequestLogRow(makeRequestLogEntry({ ts: '2026-11-21T12:00:00.000+01:00' }))?.ts).toBe('2026-11-21T11:00:00.000Z');
    expect(toRequestLogRow(makeRequestLogEntry({ ts: '2026-11-21X12:00:00.000Z' }))).toBeNull();
    expect(toRequestLogRow(makeRequestLogEntry({ ts: '2026-11-22T00:00:00.000Z' }))?.ts).toBe('2026-11-22T00:00:00.000Z');
  });
});
