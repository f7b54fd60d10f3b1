import { describe, expect, it } from '@jest/globals';
import { ErrorCode, ServiceError } from '@app/contracts';
import { normalizeLogFileName, normalizeLogFilePrefix } from './log-file-name.js';

describe('normalizeLogFileName', () => {
  it('accepts 128 hex characters and lower-cases them', () => {
    const upper = 'AB'.repeat(64);
    expect(normalizeLogFileName(upper)).toBe('ab'.repeat(64));
  });

  it.each([['a'.repeat(127)], ['a'.repeat(129)], ['g'.repeat(128)], [''], [undefined], [42]])('refuses %p with 400', (name) => {
    expect(() => normalizeLogFileName(name)).toThrow(ServiceError);
    try {
      normalizeLogFileName(name);
    } catch (err) {
      expect((err as ServiceError).code).toBe(ErrorCode.BadRequest);
      expect((err as ServiceError).message).toBe('log file name must be exactly 128 hex characters');
    }
  });
});

describe('normalizeLogFilePrefix', () => {
  it('lower-cases a hex prefix and treats empty as no filter', () => {
    expect(normalizeLogFilePrefix('ABc')).toBe('abc');
    expect(normalizeLogFilePrefix('')).toBeUndefined();
    expect(normalizeLogFilePrefix(undefined)).toBeUndefined();
  });

  it('refuses anything else (it would otherwise reach LIKE)', () => {
    expect(() => normalizeLogFilePrefix('ab%')).toThrow('prefix must be hex characters (at most 128)');
    expect(() => normalizeLogFilePrefix('a'.repeat(129))).toThrow(ServiceError);
  });
});
