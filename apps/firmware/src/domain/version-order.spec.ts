import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { compareVersions, isNewer, versionKey, versionOrderKey } from './version-order.js';

/** Versions as devices send them: printable ASCII, biased towards digits, dots and pre-release marks. */
const piece = fc.oneof(
  fc.integer({ min: 0, max: 30 }).map(String),
  fc.constantFrom('.', '-', '~', 'rc', 'beta', 'alpha', 'RC', '0', '00', '_', '+', 'a', 'b', 'z', 'v', '!'),
  fc.string({ unit: fc.constantFrom(...'!#%()*+,-./09:;<=?@AZ[]^_`az{|}~'.split('')), minLength: 1, maxLength: 3 }),
);
const version = fc.array(piece, { minLength: 1, maxLength: 8 }).map((parts) => parts.join('').slice(0, 64));
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('version order', () => {
  it('follows the documented examples', () => {
    const ascending = [
      '0.9',
      '1.2.0-alpha',
      '1.2.0-beta',
      '1.2.0-beta2',
      '1.2.0-rc1',
      '1.2.0-rc2',
      '1.2.0-rc10',
      '1.2.0~rc1',
      '1.2.0',
      '1.2.0.1',
      '1.2.1',
      '1.2.9',
      '1.2.10',
      '1.10',
      '2.0',
      '10.0',
    ];
    for (let i = 0; i < ascending.length; i++) {
      for (let j = 0; j < ascending.length; j++) {
        expect([ascending[i], ascending[j], sign(compareVersions(ascending[i], ascending[j]))]).toEqual([ascending[i], ascending[j], sign(i - j)]);
      }
    }
    expect(compareVersions('1.2.0-rc1', '1.2.0')).toBeLessThan(0);
    expect(compareVersions('1.2', '1.2.1')).toBeLessThan(0);
    expect(compareVersions('1.2.0rc1', '1.2.0')).toBeLessThan(0);
    expect(compareVersions('1.2.0RC1', '1.2.0')).toBeLessThan(0);
    expect(compareVersions('1.2.0beta', '1.2.0')).toBeLessThan(0);
    expect(compareVersions('1.2.0~1', '1.2.0')).toBeLessThan(0);
    expect(compareVersions('1.2.0.rc1', '1.2.0')).toBeGreaterThan(0); // "." is no pre-release mark
    expect(compareVersions('1.2a', '1.2')).toBeGreaterThan(0);
    expect(compareVersions('v1.0', '1.0')).toBeGreaterThan(0); // a leading digit run sorts before text
    expect(compareVersions('99999999999999999999999', '99999999999999999999998')).toBeGreaterThan(0); // no overflow
  });

  it('equal is not newer; leading zeros tie-break by text, so different strings never compare equal', () => {
    expect(compareVersions('1.2.3', '1.2.3')).toBe(0);
    expect(isNewer('1.2.3', '1.2.3')).toBe(false);
    expect(isNewer('1.2.4', '1.2.3')).toBe(true);
    expect(isNewer('1.2.3', '1.2.4')).toBe(false);
    expect(compareVersions('1.01', '1.1')).not.toBe(0);
    expect(sign(compareVersions('1.01', '1.1'))).toBe(-sign(compareVersions('1.1', '1.01')));
    expect(compareVersions('1.01', '1.2')).toBeLessThan(0);
  });

  it('is a total order: reflexive only on equal strings, antisymmetric, transitive', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        const ab = sign(compareVersions(a, b));
        expect(ab).toBe(0 - sign(compareVersions(b, a)));
        expect(ab === 0).toBe(a === b);
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(version, version, version, (a, b, c) => {
        const [x, y, z] = [a, b, c].sort(compareVersions);
        expect(compareVersions(x, y)).toBeLessThanOrEqual(0);
        expect(compareVersions(y, z)).toBeLessThanOrEqual(0);
        expect(compareVersions(x, z)).toBeLessThanOrEqual(0);
        if (compareVersions(a, b) < 0 && compareVersions(b, c) < 0) expect(compareVersions(a, c)).toBeLessThan(0);
      }),
      { numRuns: 3000 },
    );
  });

  it('versionKey orders bytes exactly as compareVersions (what SQL and the index sort by)', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(sign(Buffer.compare(versionKey(a), versionKey(b)))).toBe(sign(compareVersions(a, b)));
      }),
      { numRuns: 5000 },
    );
  });

  it("versionOrderKey compares with < exactly as compareVersions (the update check's binary search)", () => {
    const stringSign = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(stringSign(versionOrderKey(a), versionOrderKey(b))).toBe(sign(compareVersions(a, b)));
      }),
      { numRuns: 5000 },
    );
  });

  it('orders a version (ending in a number) before its extensions and after its pre-releases', () => {
    fc.assert(
      fc.property(
        version.map((v) => `${v.slice(0, 60)}${v.length % 10}`),
        fc.constantFrom('-rc1', '~1', 'beta', 'alpha2', '-1'),
        fc.constantFrom('.1', '1', 'a', '+build', '_x'),
        (base, pre, ext) => {
          expect(compareVersions(base + pre, base)).toBeLessThan(0);
          expect(compareVersions(base, base + ext)).toBeLessThan(0);
          expect(compareVersions(base + pre, base + ext)).toBeLessThan(0);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
