/**
 * Medium-test support for the logdata app: a throwaway PostgreSQL database per suite (on the
 * local server), opened with the real database adapter, and the real filesystem
 * object store under a temporary DATA_DIR.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { StagedFile } from '@app/contracts';
import { loadConfig, type ObjectStore, type ServiceConfig } from '@app/infra';
import pg from 'pg';
import { sha256 } from '../../apps/logdata/test/factories.js';

const SERVER = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };

export interface Throwaway {
  readonly config: ServiceConfig;
  readonly dataDir: string;
  /** Drops the database (after every connection to it is closed) and removes DATA_DIR. */
  dispose(): Promise<void>;
}

/**
 * CREATE DATABASE t_<label>_<random> and a temporary DATA_DIR, with a config pointing at both
 * (and the `env` given); or, for `embedded` (default: MEDIUM_DATABASE=embedded), the embedded
 * database under DATA_DIR.
 */
export async function createThrowaway(
  label: string,
  kind: 'postgres' | 'embedded' = process.env.MEDIUM_DATABASE === 'embedded' ? 'embedded' : 'postgres',
  env: Record<string, string> = {},
): Promise<Throwaway> {
  if (kind === 'embedded') return createEmbedded(label, env);
  const database = `t_${label}_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${database}`);
  const dataDir = await mkdtemp(join(tmpdir(), `${label}-medium-`));
  const url = `postgres://${SERVER.user}@${SERVER.host}:${SERVER.port}/${database}`;
  const config = loadConfig({ DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'error', ...env });
  return {
    config,
    dataDir,
    async dispose() {
      await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** MEDIUM_DATABASE=embedded: the same suites on the embedded PGlite adapter under a temporary DATA_DIR. */
async function createEmbedded(label: string, env: Record<string, string>): Promise<Throwaway> {
  const dataDir = await mkdtemp(join(tmpdir(), `${label}-medium-`));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error', ...env });
  return { config, dataDir, dispose: () => rm(dataDir, { recursive: true, force: true }) };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ ...SERVER, database: 'postgres' });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** What the gateway does before calling upload: stream the body into the store under a staging key. */
export async function stageFile(store: ObjectStore, content: string | Buffer, contentType = 'text/plain'): Promise<StagedFile> {
  const bytes = Buffer.from(content);
  const key = `staging/${randomUUID()}`;
  await store.put(key, Readable.from([bytes]), { sizeBytes: bytes.length, contentType });
  return { key, sizeBytes: bytes.length, sha256: sha256(bytes), contentType };
}

export async function exists(store: ObjectStore, key: string): Promise<boolean> {
  return (await store.head(key)) !== null;
}
