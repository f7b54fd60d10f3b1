import { ServiceError } from '@app/contracts';

const NAME = /^[0-9a-f]{128}$/i;
const PREFIX = /^[0-9a-f]{0,128}$/i;

/** SPEC "Log file": 128 hex characters, upper case accepted, stored and compared in lower case. */
export function normalizeLogFileName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name)) throw ServiceError.badRequest('log file name must be exactly 128 hex characters');
  return name.toLowerCase();
}

/** List prefix: case-insensitive, so lower-cased like the names. Empty means no filter. */
export function normalizeLogFilePrefix(prefix: unknown): string | undefined {
  if (prefix === undefined || prefix === null || prefix === '') return undefined;
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) throw ServiceError.badRequest('prefix must be hex characters (at most 128)');
  return prefix.toLowerCase();
}
