/**
 * Hostile input: strings that break naive code (NUL, lone surrogates, control characters,
 * injection shapes, very long ones), the wrong-type spellings of scalars, and URL bytes that are
 * not valid percent-encoding. Strings are given decoded; `percentEncode` turns them into the
 * bytes a client would send, lone surrogates included (as their 3-byte WTF-8 form, %ED%A0%80
 * for U+D800, which is what arrives from a client that does not check).
 */

export interface Labelled<T> {
  readonly label: string;
  readonly value: T;
}

const l = <T>(label: string, value: T): Labelled<T> => ({ label, value });

/** Decoded strings, for path segments, query values and JSON string fields alike. */
export const HOSTILE_STRINGS: readonly Labelled<string>[] = [
  l('NUL', '\u0000'),
  l('NUL inside', 'a\u0000b'),
  l('NUL x64', '\u0000'.repeat(64)),
  l('lone high surrogate', '\ud800'),
  l('lone low surrogate', 'x\udfff'),
  l('reversed surrogates', '\udc00\ud800'),
  l('C0 controls', '\u0001\u0002\u001b\u001f'),
  l('DEL', '\u007f'),
  l('CRLF', 'a\r\nSet-Cookie: x=1'),
  l('LF', '\n'),
  l('TAB', '\t'),
  l('space', ' '),
  l('spaces around', '  x  '),
  l('NBSP', '\u00a0'),
  l('zero width space', '\u200b'),
  l('RTL override', '\u202eabc'),
  l('BOM', '\ufeff'),
  l('U+FFFF', '\uffff'),
  l('C1 control', '\u0085\u009b'),
  l('latin-1', 'é'),
  l('upper case accent', 'É'),
  l('emoji', '😀'),
  l('combining', 'e\u0301'),
  l('CJK', '漢字'),
  l('dot dot', '..'),
  l('dot', '.'),
  l('path traversal', '../../etc/passwd'),
  l('slash', 'a/b'),
  l('backslash', 'a\\b'),
  l('percent', '%'),
  l('encoded NUL text', '%00'),
  l('encoded slash text', '%2F'),
  l('question mark', 'a?b=c'),
  l('hash', 'a#b'),
  l('ampersand and equals', 'a&b=c'),
  l('quote', '"'),
  l('apostrophe', "'"),
  l('backtick', '`'),
  l('SQL injection', "' OR '1'='1' --"),
  l('SQL drop', "x'; DROP TABLE devices; --"),
  l('LIKE wildcards', '%_%'),
  l('HTML', '<script>alert(1)</script>'),
  l('template', '${jndi:ldap://x/a}{{7*7}}'),
  l('format string', '%s%s%n%x'),
  l('null word', 'null'),
  l('undefined word', 'undefined'),
  l('proto', '__proto__'),
  l('constructor', 'constructor'),
  l('number-like', '1e309'),
  l('negative zero', '-0'),
  l('empty', ''),
  l('1000 x a', 'a'.repeat(1000)),
  l('300 x é', 'é'.repeat(300)),
  l('1000 x emoji', '😀'.repeat(1000)),
];

/** Long strings (a URL over 16 KiB is beyond Node's default header limit). */
export const LONG_STRINGS: readonly Labelled<string>[] = [
  l('5000 x a', 'a'.repeat(5000)),
  l('12000 x z', 'z'.repeat(12_000)),
  l('20000 x a', 'a'.repeat(20_000)),
];

/** URL bytes as they go on the wire (already "encoded"): bad percent-encoding, raw bytes. */
export const HOSTILE_WIRE: readonly Labelled<string>[] = [
  l('%zz', '%zz'),
  l('truncated UTF-8 %E0%A4', '%E0%A4'),
  l('lone %', '%'),
  l('%%', '%%'),
  l('trailing %', 'a%'),
  l('%2', '%2'),
  l('%u0041', '%u0041'),
  l('overlong slash %C0%AF', '%C0%AF'),
  l('%FF', '%FF'),
  l('encoded lone surrogate %ED%A0%80', '%ED%A0%80'),
  l('encoded NUL %00', '%00'),
  l('encoded NUL inside', 'a%00b'),
  l('encoded CR LF', '%0D%0A'),
  l('encoded slash %2F', '%2F'),
  l('encoded dot dot', '%2E%2E'),
  l('raw byte 0xFF', '\u00ff'),
  l('raw bytes 0x80 0xFE', '\u0080\u00fe'),
  l('raw latin-1 é (invalid UTF-8)', '\u00e9'),
  l('raw UTF-8 é', '\u00c3\u00a9'),
  l('raw double quote', '"'),
  l('raw backslash', '\\'),
  l('raw braces', '{}|^`'),
];

/** Scalars spelled as the wrong type (for string, integer and boolean parameters alike). */
export const WRONG_TYPE_SPELLINGS: readonly string[] = [
  '0',
  '-1',
  '1.5',
  '1e3',
  'NaN',
  'Infinity',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  '0x10',
  '99999999999999999999999',
  '+1',
  ' 1',
];

/** JSON values of every type, for a field whose schema wants another. */
export const WRONG_TYPE_JSON: readonly unknown[] = [null, true, false, 0, -1, 1.5, 1e308, '', 'x', [], [1, 'a'], {}, { a: 1 }, '123', 'true'];

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * The string's UTF-8 bytes, each percent-encoded except the unreserved characters; a lone
 * surrogate is encoded as the three bytes of its code unit (WTF-8), as a lax client would.
 */
export function percentEncode(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    const char = value[i];
    if (unit < 0x80) {
      out += UNRESERVED.test(char) ? char : pct([unit]);
      continue;
    }
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += pct([...Buffer.from(value.slice(i, i + 2), 'utf8')]);
        i++;
        continue;
      }
    }
    if (unit < 0x800) out += pct([0xc0 | (unit >> 6), 0x80 | (unit & 0x3f)]);
    else out += pct([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]);
  }
  return out;
}

function pct(bytes: readonly number[]): string {
  return bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Bytes of a JSON text that cannot be parsed (or decoded), with what is wrong with them. */
export const INVALID_JSON: readonly Labelled<Buffer>[] = [
  l('truncated object', Buffer.from('{"a":')),
  l('lone brace', Buffer.from('{')),
  l('trailing garbage', Buffer.from('{"a":1}garbage')),
  l('two documents', Buffer.from('{} {}')),
  l('single quotes', Buffer.from("{'a':1}")),
  l('trailing comma', Buffer.from('{"a":1,}')),
  l('comment', Buffer.from('{/* c */}')),
  l('NaN literal', Buffer.from('{"a":NaN}')),
  l('bare word', Buffer.from('nul')),
  l('invalid UTF-8 bytes', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
  l('overlong UTF-8', Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d])),
  l('UTF-8 BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')])),
  l('UTF-16LE', Buffer.from('{"email":"a@b.c"}', 'utf16le')),
  l('raw NUL byte', Buffer.from('{"a":"\u0000"}')),
  l('escaped lone surrogate', Buffer.from('{"a":"\\ud800"}')),
  l('bad escape', Buffer.from('{"a":"\\x41"}')),
  l('huge number', Buffer.from(`{"a":1${'0'.repeat(400)}}`)),
  l('deeply nested arrays', Buffer.from(`${'['.repeat(20_000)}${']'.repeat(20_000)}`)),
  l('deeply nested objects', Buffer.from(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`)),
  l('duplicate keys', Buffer.from('{"a":1,"a":2}')),
  l('whitespace only', Buffer.from(' \n\t ')),
];
