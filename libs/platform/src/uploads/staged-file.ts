import type { StagedFile } from '@app/contracts';

const SHA256 = /^[0-9a-f]{64}$/i;

/**
 * What is wrong with a staged file as described to an app (checked in this order), or null:
 * `missing` (no file or no object key), `size` (not a non-negative safe integer), `checksum`
 * (not a hex SHA-256). Each app words the 400 for its own part names.
 */
export function stagedFileFault(file: StagedFile | null | undefined): 'missing' | 'size' | 'checksum' | null {
  if (!file || typeof file.key !== 'string' || file.key === '') return 'missing';
  if (!Number.isSafeInteger(file.sizeBytes) || file.sizeBytes < 0) return 'size';
  if (typeof file.sha256 !== 'string' || !SHA256.test(file.sha256)) return 'checksum';
  return null;
}
