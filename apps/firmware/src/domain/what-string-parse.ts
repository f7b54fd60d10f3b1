import { FW_TYPES, type FwType, INSTANT_RANGE_RULE, isStorableInstant, NAME_PATTERN } from '@app/contracts';

/** The values a what string carries: `<fw_version>, <build_date>, <fw_type>`. */
export interface WhatValues {
  readonly fwVersion: string;
  readonly buildDate: Date;
  readonly fwType: FwType;
}

export type WhatParse = { readonly ok: true; readonly values: WhatValues } | { readonly ok: false; readonly error: string };

const NAME = new RegExp(NAME_PATTERN);
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * An RFC 3339 date-time (`2026-11-20T10:00:00Z`, any offset, optional fraction) or a full
 * date (`2026-11-20`, midnight UTC). Calendar-checked: 2026-02-30 is refused.
 */
export function parseBuildDate(text: string): Date | null {
  const dateTime = DATE_TIME.exec(text);
  const fullDate = dateTime ? null : FULL_DATE.exec(text);
  const match = dateTime ?? fullDate;
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  if (dateTime && (Number(match[4]) > 23 || Number(match[5]) > 59 || Number(match[6]) > 60)) return null;
  const date = new Date(fullDate ? `${text}T00:00:00Z` : text.replace(' ', 'T'));
  return Number.isNaN(date.getTime()) ? null : date;
}

export function parseFwType(text: string): FwType | null {
  const upper = text.toUpperCase();
  return (FW_TYPES as readonly string[]).includes(upper) ? (upper as FwType) : null;
}

/** Parses the text after `@(#)`. Surrounding spaces of each value are ignored; fw_type in any case. */
export function parseWhatText(text: string): WhatParse {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length !== 3) {
    return { ok: false, error: `what string "${text}" is not "<fw_version>, <build_date>, <fw_type>" (${parts.length} comma-separated values)` };
  }
  const [fwVersion, date, type] = parts as [string, string, string];
  if (!NAME.test(fwVersion)) return { ok: false, error: `what string "${text}": fw_version must be 1 to 64 printable ASCII characters without spaces` };
  const buildDate = parseBuildDate(date);
  if (!buildDate) return { ok: false, error: `what string "${text}": build_date "${date}" is not an RFC 3339 date or timestamp` };
  if (!isStorableInstant(buildDate.getTime())) return { ok: false, error: `what string "${text}": build_date "${date}" ${INSTANT_RANGE_RULE}` };
  const fwType = parseFwType(type);
  if (!fwType) return { ok: false, error: `what string "${text}": fw_type "${type}" is not AFI, EFI or MFI` };
  return { ok: true, values: { fwVersion, buildDate, fwType } };
}
