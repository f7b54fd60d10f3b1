import { isHwid, RegistryErrors, ServiceError } from '@app/contracts';
import { normalizeAttributes, tagSetOf } from '../../domain/device-values.js';
import type { UpsertRow } from '../../repositories/device-import.repository.js';

/** A row ready to upsert, or why it is refused. `line`: CSV line (header = 1) or JSON element (from 1). */
export type ImportRow = (UpsertRow & { readonly line: number }) | ImportRowError;
export interface ImportRowError {
  readonly line: number;
  readonly hwid: string | null;
  readonly error: string;
  /** Reading stopped here (the rest of the body was not read). */
  readonly stop?: boolean;
}

export function isRowError(row: ImportRow): row is ImportRowError {
  return 'error' in row;
}

/** Reported HW ids of refused rows are cut to this length. */
const SHOWN_HWID = 100;
const shown = (value: unknown): string | null => (typeof value === 'string' ? value.slice(0, SHOWN_HWID) : null);

export interface CsvColumns {
  readonly hwid: number;
  /** Absent: the file does not touch tags. */
  readonly tags: number | null;
  readonly count: number;
}

/** The header names the columns `hwid` and (optionally) `tags`, in any order. */
export function csvColumns(header: readonly string[]): CsvColumns {
  const names = header.map((name) => name.trim().toLowerCase());
  for (const name of names) {
    if (name !== 'hwid' && name !== 'tags')
      throw RegistryErrors.device_import_csv_header_invalid({ problem: `unknown column ${JSON.stringify(name.slice(0, 40))}` });
  }
  if (new Set(names).size !== names.length) throw RegistryErrors.device_import_csv_header_invalid({ problem: 'a column is named twice' });
  const hwid = names.indexOf('hwid');
  if (hwid === -1) throw RegistryErrors.device_import_csv_header_invalid({ problem: 'hwid is missing' });
  const tags = names.indexOf('tags');
  return { hwid, tags: tags === -1 ? null : tags, count: names.length };
}

/** A CSV record: the tags cell lists tags separated by spaces; an empty cell means no tags. */
export function rowFromCsv(columns: CsvColumns, line: number, fields: readonly string[], canWriteTags: boolean): ImportRow {
  const hwid = fields[columns.hwid];
  if (fields.length !== columns.count) {
    return { line, hwid: shown(hwid), error: `expected ${columns.count} fields, found ${fields.length}` };
  }
  if (!isHwid(hwid)) return { line, hwid: shown(hwid), error: RegistryErrors.device_hwid_invalid().message };
  let tags: string[] | null = null;
  if (columns.tags !== null) {
    const cell = fields[columns.tags].trim();
    const checked = checkTags(cell === '' ? [] : cell.split(/[ \t]+/), canWriteTags);
    if (typeof checked === 'string') return { line, hwid, error: checked };
    tags = checked;
  }
  return { line, hwid, tags, attributes: null };
}

const JSON_ROW_KEYS = new Set(['hwid', 'tags', 'attributes']);

/** A JSON element: `{hwid, tags?, attributes?}`. */
export function rowFromJson(line: number, value: unknown, canWriteTags: boolean): ImportRow {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { line, hwid: null, error: 'each element must be an object {hwid, tags?, attributes?}' };
  const row = value as Record<string, unknown>;
  const hwid = row.hwid;
  const unknown = Object.keys(row).find((key) => !JSON_ROW_KEYS.has(key));
  if (unknown !== undefined)
    return { line, hwid: shown(hwid), error: `unknown property ${JSON.stringify(unknown.slice(0, 40))} (allowed: hwid, tags, attributes)` };
  if (hwid === undefined) return { line, hwid: null, error: 'hwid is required' };
  if (!isHwid(hwid)) return { line, hwid: shown(hwid), error: RegistryErrors.device_hwid_invalid().message };
  let tags: string[] | null = null;
  if (row.tags !== undefined) {
    if (!Array.isArray(row.tags)) return { line, hwid, error: RegistryErrors.device_tags_not_array().message };
    const checked = checkTags(row.tags, canWriteTags);
    if (typeof checked === 'string') return { line, hwid, error: checked };
    tags = checked;
  }
  let attributes: Record<string, unknown> | null = null;
  if (row.attributes !== undefined) {
    try {
      attributes = normalizeAttributes(row.attributes);
    } catch (err) {
      return { line, hwid, error: ServiceError.is(err) ? err.message : RegistryErrors.device_attributes_invalid().message };
    }
  }
  return { line, hwid, tags, attributes };
}

/** Sorted distinct tags, or the error message. */
function checkTags(values: readonly unknown[], canWriteTags: boolean): string[] | string {
  const tags = tagSetOf(values);
  if (ServiceError.is(tags)) return tags.message;
  if (!canWriteTags) return 'setting tags needs scope tags:write';
  return tags;
}
