import { LogFileListQuery, LogFileName } from '@app/contracts';
import { contractCheck } from '@app/platform';

const validName = contractCheck(LogFileName);
const validPrefix = contractCheck(LogFileListQuery.properties.prefix);

/** A log file name as the contract's LogFileName allows it (any case), stored and compared in lower case. */
export function normalizeLogFileName(name: unknown): string {
  return validName(name).toLowerCase();
}

/** List prefix (the contract's rule): case-insensitive, so lower-cased like the names. Empty means no filter. */
export function normalizeLogFilePrefix(prefix: unknown): string | undefined {
  if (prefix === undefined || prefix === null || prefix === '') return undefined;
  return validPrefix(prefix).toLowerCase();
}
