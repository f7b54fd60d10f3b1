/**
 * Version order (docs/api.md, firmware versions), in one place: the update check, the in-memory index,
 * the firmware list and the database's `version_key` column all use it.
 *
 * A version is split into runs of digits and runs of other characters. Runs are compared
 * one by one: digit runs as numbers (any length; `10` > `9`), other runs as text. When one
 * version runs out of runs first, the next run of the longer one decides: a pre-release run
 * (starting with `-`, `~`, `rc`, `beta` or `alpha`, the letters in any case) makes the
 * longer version older (`1.2.0-rc1` < `1.2.0`), anything else makes it newer (`1.2` <
 * `1.2.1`). Equal is not newer.
 *
 * Formally each run becomes a token with a class, and the end of a version is a token too:
 *
 *   pre-release text  <  end of version  <  digits  <  other text
 *
 * Tokens of the same class compare by value (digits numerically, text by character code).
 * Because digit and text runs alternate, two versions equal so far always meet tokens of the
 * same class except at the very first run (`1.0` < `v1.0`: digits before text) and at an end.
 * Versions equal token by token but written differently (`1.01` and `1.1`) are finally
 * ordered by plain character order, so that the order is total: two different strings are
 * never "equal", and sorting is deterministic.
 *
 * `versionKey` encodes the same order as bytes (compare with Buffer.compare or PostgreSQL's
 * bytea ordering), so that SQL can sort by version.
 */

const enum TokenClass {
  PreRelease = 0,
  End = 1,
  Digits = 2,
  Text = 3,
}

interface Token {
  readonly cls: TokenClass;
  /** Digits without leading zeros (at least "0"), or the text run. */
  readonly value: string;
}

const PRE_RELEASE = /^(?:[-~]|rc|beta|alpha)/i;
const END: Token = { cls: TokenClass.End, value: '' };

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

export function tokenize(version: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < version.length) {
    const start = i;
    const digits = isDigit(version.charCodeAt(i));
    while (i < version.length && isDigit(version.charCodeAt(i)) === digits) i++;
    const run = version.slice(start, i);
    if (digits) {
      const stripped = run.replace(/^0+(?=\d)/, '');
      tokens.push({ cls: TokenClass.Digits, value: stripped });
    } else {
      tokens.push({ cls: PRE_RELEASE.test(run) ? TokenClass.PreRelease : TokenClass.Text, value: run });
    }
  }
  return tokens;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareTokens(a: Token, b: Token): number {
  if (a.cls !== b.cls) return a.cls - b.cls;
  if (a.cls === TokenClass.Digits) {
    if (a.value.length !== b.value.length) return a.value.length - b.value.length;
  }
  return compareText(a.value, b.value);
}

/** Negative when `a` is older than `b`, positive when newer, 0 only for the same string. */
export function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const ta = tokenize(a);
  const tb = tokenize(b);
  const n = Math.max(ta.length, tb.length);
  for (let i = 0; i < n; i++) {
    const c = compareTokens(ta[i] ?? END, tb[i] ?? END);
    if (c !== 0) return Math.sign(c);
  }
  return compareText(a, b);
}

/** Whether `candidate` is newer than `current` (equal is not newer). */
export function isNewer(candidate: string, current: string): boolean {
  return compareVersions(candidate, current) > 0;
}

/**
 * Bytes whose order (memcmp, PostgreSQL bytea) is the version order. Per token: its class as
 * one byte, then for digits the number of digits (2 bytes, big-endian) and the digits, for
 * text the characters (UTF-8) and a 0 byte (so a run sorts before its own extensions). Then
 * the end token, a 0 byte and the version itself (the final tie-break).
 */
export function versionKey(version: string): Buffer {
  const parts: Buffer[] = [];
  for (const token of tokenize(version)) {
    if (token.cls === TokenClass.Digits) {
      const header = Buffer.alloc(3);
      header[0] = token.cls;
      header.writeUInt16BE(Math.min(token.value.length, 0xffff), 1);
      parts.push(header, Buffer.from(token.value, 'latin1'));
    } else {
      parts.push(Buffer.from([token.cls]), Buffer.from(token.value, 'utf8'), Buffer.from([0]));
    }
  }
  parts.push(Buffer.from([TokenClass.End, 0]), Buffer.from(version, 'utf8'));
  return Buffer.concat(parts);
}

/**
 * versionKey() as a latin1 string (one character per byte): JavaScript's string comparison
 * (UTF-16 code units, a prefix first) then orders exactly as memcmp orders the bytes, without
 * a call into Buffer.compare per step of the update check's binary search.
 */
export function versionOrderKey(version: string): string {
  return versionKey(version).toString('latin1');
}
