import { describe, expect, it } from '@jest/globals';
import { ErrorCode, ServiceError } from '@app/contracts';
import { resolveBuildValues } from './build-values.js';
import { scanWhatStringsInBuffer } from './what-strings.js';

const scan = (text: string) => scanWhatStringsInBuffer(Buffer.from(text, 'latin1'));
const now = new Date('2026-11-21T00:00:00Z');

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return ServiceError.is(err) ? `${err.code} ${err.reason}: ${err.message}` : String(err);
  }
  return undefined;
}

describe('upload values (query, then what string; 422 rules)', () => {
  const two = scan('\0@(#)1.0, 2026-11-20T10:00:00Z, AFI\0@(#)2.0, 2026-11-21, EFI\0');

  it('takes the chosen what string (what_index from 0, default 0)', () => {
    expect(resolveBuildValues({}, undefined, two, now)).toEqual({
      fwVersion: '1.0',
      fwType: 'AFI',
      buildDate: new Date('2026-11-20T10:00:00Z'),
      whatString: '1.0, 2026-11-20T10:00:00Z, AFI',
    });
    expect(resolveBuildValues({}, 1, two, now)).toMatchObject({ fwVersion: '2.0', fwType: 'EFI', buildDate: new Date('2026-11-21T00:00:00Z') });
  });

  it('accepts query values that agree, refuses contradicting ones with 422', () => {
    expect(resolveBuildValues({ fwVersion: '1.0', fwType: 'AFI', buildDate: new Date('2026-11-20T11:00:00+01:00') }, 0, two, now).fwVersion).toBe('1.0');
    expect(codeOf(() => resolveBuildValues({ fwVersion: '1.1' }, 0, two, now))).toMatch(
      `${ErrorCode.Unprocessable} what_string_contradicted: fw_version 1.1 contradicts`,
    );
    expect(codeOf(() => resolveBuildValues({ fwType: 'MFI' }, 0, two, now))).toMatch(
      `${ErrorCode.Unprocessable} what_string_contradicted: fw_type MFI contradicts`,
    );
    expect(codeOf(() => resolveBuildValues({ buildDate: new Date('2026-11-20T10:00:01Z') }, 0, two, now))).toMatch(
      `${ErrorCode.Unprocessable} what_string_contradicted: build_date`,
    );
  });

  it('without what strings: fw_version from the query (else 422), fw_type AFI and build_date now by default', () => {
    const none = scan('no markers here');
    expect(resolveBuildValues({ fwVersion: '3.0' }, undefined, none, now)).toEqual({ fwVersion: '3.0', fwType: 'AFI', buildDate: now, whatString: null });
    expect(resolveBuildValues({ fwVersion: '3.0', fwType: 'MFI', buildDate: new Date(0) }, undefined, none, now)).toMatchObject({
      fwType: 'MFI',
      buildDate: new Date(0),
    });
    expect(codeOf(() => resolveBuildValues({}, undefined, none, now))).toMatch(`${ErrorCode.Unprocessable} what_string_missing: the binary has no what string`);
    expect(codeOf(() => resolveBuildValues({ fwVersion: '3.0' }, 0, none, now))).toMatch(
      `${ErrorCode.Unprocessable} what_index_out_of_range: what_index 0 is out of range: the binary has no what string`,
    );
  });

  it('what_index out of range and unparseable what strings: 422', () => {
    expect(codeOf(() => resolveBuildValues({}, 2, two, now))).toMatch(
      `${ErrorCode.Unprocessable} what_index_out_of_range: what_index 2 is out of range: the binary has 2 what strings`,
    );
    expect(codeOf(() => resolveBuildValues({ fwVersion: '1.0' }, 0, scan('@(#)hello'), now))).toMatch(
      `${ErrorCode.Unprocessable} what_string_unparsable: what string 0 cannot be parsed`,
    );
  });
});
