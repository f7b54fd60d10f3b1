import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ConfigError, FIRMWARE_MAX_BYTES_LIMIT, loadConfig, SECRET_VARIABLES } from './config.js';

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

describe('loadConfig: secrets from files (NAME_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'config-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('reads every secret variable from the file NAME_FILE names, without its final newline only', () => {
    for (const name of SECRET_VARIABLES) {
      const value = `postgres://u:p@h/${name} `;
      const env = { [`${name}_FILE`]: file(name, `${value}\n`), S3_BUCKET: 'b', BACKUP_S3_BUCKET: 'b' };
      const config = loadConfig(env);
      const read = {
        SMTP_URL: config.smtpUrl,
        METRICS_TOKEN: config.metricsToken,
        DATABASE_URL: config.databaseUrl,
        NATS_URL: config.natsUrl,
        REDIS_URL: config.redisUrl,
        S3_ACCESS_KEY_ID: config.s3?.accessKeyId,
        S3_SECRET_ACCESS_KEY: config.s3?.secretAccessKey,
        DOWNLOAD_LINK_SECRET: config.downloadLinkSecret,
        BACKUP_S3_ACCESS_KEY_ID: config.backup.s3?.accessKeyId,
        BACKUP_S3_SECRET_ACCESS_KEY: config.backup.s3?.secretAccessKey,
      }[name];
      expect(read).toBe(value);
    }
    expect(loadConfig({ METRICS_TOKEN_FILE: file('crlf', 'tok\r\n') }).metricsToken).toBe('tok');
    expect(loadConfig({ METRICS_TOKEN: 'from-env' }).metricsToken).toBe('from-env');
  });

  it('refuses a secret set both ways, naming both variables', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db', DATABASE_URL_FILE: file('db', 'postgres://h/db') })).toThrow(
      new ConfigError('DATABASE_URL and DATABASE_URL_FILE are both set: set one of them'),
    );
  });

  it('refuses a file it cannot read, or an empty one, naming the file', () => {
    const missing = join(dir, 'missing');
    expect(() => loadConfig({ REDIS_URL_FILE: missing })).toThrow(new ConfigError(`REDIS_URL_FILE names ${missing}, which cannot be read (ENOENT)`));
    const empty = file('empty', '\n');
    expect(() => loadConfig({ REDIS_URL_FILE: empty })).toThrow(new ConfigError(`REDIS_URL_FILE names ${empty}, which is empty`));
  });
});
