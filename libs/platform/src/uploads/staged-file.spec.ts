import { describe, expect, it } from '@jest/globals';
import { stagedFileFault } from './staged-file.js';

describe('stagedFileFault', () => {
  const file = { key: 'staging/x', sizeBytes: 3, sha256: 'A'.repeat(64), contentType: 'text/plain' };

  it('accepts a described file (checksum in any case) and names the first fault', () => {
    expect(stagedFileFault(file)).toBeNull();
    expect(stagedFileFault(undefined)).toBe('missing');
    expect(stagedFileFault({ ...file, key: '' })).toBe('missing');
    expect(stagedFileFault({ ...file, sizeBytes: -1, sha256: 'zz' })).toBe('size');
    expect(stagedFileFault({ ...file, sizeBytes: 1.5 })).toBe('size');
    expect(stagedFileFault({ ...file, sha256: 'zz' })).toBe('checksum');
  });
});
