import { FirmwareErrors, type FwType } from '@app/contracts';
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
    if (whatIndex !== undefined) throw FirmwareErrors.what_index_out_of_range({ index: whatIndex, total: 0 });
    if (declared.fwVersion === undefined) throw FirmwareErrors.what_string_missing();
    return { fwVersion: declared.fwVersion, fwType: declared.fwType ?? 'AFI', buildDate: declared.buildDate ?? now, whatString: null };
  }
  const index = whatIndex ?? 0;
  if (index >= scan.total) throw FirmwareErrors.what_index_out_of_range({ index, total: scan.total });
  const chosen = scan.found[index];
  if (!chosen) throw FirmwareErrors.what_index_beyond_read({ index, read: scan.found.length });
  const parsed = parseWhatText(chosen.text);
  if (!parsed.ok) throw FirmwareErrors.what_string_unparsable({ index, error: parsed.error });
  const values = parsed.values;
  if (declared.fwVersion !== undefined && declared.fwVersion !== values.fwVersion) {
    throw FirmwareErrors.what_string_contradicted({ field: 'fw_version', declared: declared.fwVersion, found: values.fwVersion });
  }
  if (declared.fwType !== undefined && declared.fwType !== values.fwType) {
    throw FirmwareErrors.what_string_contradicted({ field: 'fw_type', declared: declared.fwType, found: values.fwType });
  }
  if (declared.buildDate !== undefined && declared.buildDate.getTime() !== values.buildDate.getTime()) {
    throw FirmwareErrors.what_string_contradicted({ field: 'build_date', declared: declared.buildDate.toISOString(), found: values.buildDate.toISOString() });
  }
  return { fwVersion: values.fwVersion, fwType: values.fwType, buildDate: values.buildDate, whatString: chosen.text };
}
