import { describe, expect, it } from '@jest/globals';
import { ConfigError, FIRMWARE_MAX_BYTES_LIMIT, loadConfig } from './config.js';

describe('loadConfig: integer settings', () => {
  it('takes FIRMWARE_MAX_BYTES up to 5 GiB, the largest object one S3 copy carries', () => {
    expect(loadConfig({ FIRMWARE_MAX_BYTES: String(FIRMWARE_MAX_BYTES_LIMIT) }).firmwareMaxBytes).toBe(5 * 1024 ** 3);
    expect(loadConfig({}).firmwareMaxBytes).toBe(512 * 1024 * 1024);
  });

  it('refuses FIRMWARE_MAX_BYTES above 5 GiB or below 1, naming the range', () => {
    for (const raw of [String(FIRMWARE_MAX_BYTES_LIMIT + 1), '0', '1.5', 'lots']) {
      expect(() => loadConfig({ FIRMWARE_MAX_BYTES: raw })).toThrow(
        new ConfigError(`FIRMWARE_MAX_BYTES must be an integer from 1 to 5368709120, got "${raw}"`),
      );
    }
  });

  it('names only the lower bound of a setting without an upper one', () => {
    expect(() => loadConfig({ REQUEST_LOG_RETENTION_DAYS: '0' })).toThrow('REQUEST_LOG_RETENTION_DAYS must be an integer >= 1, got "0"');
  });
});
