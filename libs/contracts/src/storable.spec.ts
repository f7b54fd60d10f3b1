import { describe, expect, it } from '@jest/globals';
import { isStorableInstant, isStorableText, recordedJson, recordedText, storableText, unstorableTextAt } from './storable.js';

describe('storable text', () => {
  it('refuses U+0000 and unpaired surrogates, accepts pairs and other control characters', () => {
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\ud800')).toBe(false);
    expect(isStorableText('x\udc00')).toBe(false);
    expect(isStorableText('\ud83d\ude80 \x01\x1b\x7f')).toBe(true);
  });

  it('names where unstorable text sits: values, array items and property names', () => {
    expect(unstorableTextAt({ a: 'ok', b: { c: ['x', '\u0000'] } })).toBe('b.c.1');
    expect(unstorableTextAt({ ['k\ud800']: 1 })).toBe('"k\\ud800"');
    expect(unstorableTextAt('\ud800')).toBe('');
    expect(unstorableTextAt({ a: 1, b: null, c: ['fine'] })).toBeUndefined();
  });

  it('escapes what it cannot store and cuts recorded text without splitting a pair', () => {
    expect(storableText('a\u0000b\ud800c\udc00\ud83d\ude80')).toBe('a\\u0000b\\ud800c\\udc00\ud83d\ude80');
    expect(recordedText(`${'u'.repeat(9)}\ud83d\ude80`, 10)).toBe('u'.repeat(9));
    expect(recordedText(undefined, 5)).toBe('');
    expect(recordedText(12345678, 4)).toBe('1234');
    expect(recordedJson({ ['\ud800']: ['\u0000', 1, null, { x: '\udfff' }] })).toEqual({ ['\\ud800']: ['\\u0000', 1, null, { x: '\\udfff' }] });
  });
});

describe('storable instants', () => {
  it('spans the four-digit years in UTC', () => {
    expect(isStorableInstant(Date.parse('0001-01-01T00:00:00Z'))).toBe(true);
    expect(isStorableInstant(Date.parse('9999-12-31T23:59:59.999Z'))).toBe(true);
    expect(isStorableInstant(Date.parse('0000-12-31T23:59:59.999Z'))).toBe(false);
    expect(isStorableInstant(Date.parse('9999-12-31T23:30:00-01:00'))).toBe(false);
    expect(isStorableInstant(Number.NaN)).toBe(false);
  });
});
