import { ErrorCode, type FwType, ServiceError } from '@app/contracts';
import type { DeclaredValues } from '../use-cases/upload-build/upload-build.command.js';
import type { WhatStringScan } from './what-strings.js';
import { parseWhatText } from './what-string-parse.js';

export interface BuildValues {
  readonly fwVersion: string;
  readonly fwType: FwType;
  readonly buildDate: Date;
  /** The what string's text the values came from, or null. */
  readonly whatString: string | null;
}

function unprocessable(message: string): ServiceError {
  return new ServiceError(ErrorCode.Unprocessable, message);
}

/**
 * fw_version, build_date and fw_type of an upload (docs/api.md, firmware upload): from the chosen
 * what string, which the query must not contradict (422); without any what string from the
 * query (fw_version required, else 422; fw_type defaults to AFI, build_date to `now`).
 * what_index out of range, or a chosen what string that cannot be parsed: 422.
 */
export function resolveBuildValues(
  declared: DeclaredValues,
  whatIndex: number | undefined,
  scan: Pick<WhatStringScan, 'found' | 'total'>,
  now: Date,
): BuildValues {
  if (scan.total === 0) {
    if (whatIndex !== undefined) throw unprocessable(`what_index ${whatIndex} is out of range: the binary has no what string`);
    if (declared.fwVersion === undefined)
      throw unprocessable('the binary has no what string (@(#)<fw_version>, <build_date>, <fw_type>) and fw_version is missing');
    return { fwVersion: declared.fwVersion, fwType: declared.fwType ?? 'AFI', buildDate: declared.buildDate ?? now, whatString: null };
  }
  const index = whatIndex ?? 0;
  if (index >= scan.total) throw unprocessable(`what_index ${index} is out of range: the binary has ${scan.total} what string${scan.total === 1 ? '' : 's'}`);
  const chosen = scan.found[index];
  if (!chosen) throw unprocessable(`what_index ${index} is beyond the first ${scan.found.length} what strings, which are all that is read`);
  const parsed = parseWhatText(chosen.text);
  if (!parsed.ok) throw unprocessable(`what string ${index} cannot be parsed: ${parsed.error}`);
  const values = parsed.values;
  if (declared.fwVersion !== undefined && declared.fwVersion !== values.fwVersion) {
    throw unprocessable(`fw_version ${declared.fwVersion} contradicts the what string (${values.fwVersion})`);
  }
  if (declared.fwType !== undefined && declared.fwType !== values.fwType) {
    throw unprocessable(`fw_type ${declared.fwType} contradicts the what string (${values.fwType})`);
  }
  if (declared.buildDate !== undefined && declared.buildDate.getTime() !== values.buildDate.getTime()) {
    throw unprocessable(`build_date ${declared.buildDate.toISOString()} contradicts the what string (${values.buildDate.toISOString()})`);
  }
  return { fwVersion: values.fwVersion, fwType: values.fwType, buildDate: values.buildDate, whatString: chosen.text };
}
