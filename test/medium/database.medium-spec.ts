import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { Column, CreateDateColumn, DataSource, Entity, type MigrationInterface, PrimaryGeneratedColumn, type QueryRunner } from 'typeorm';
import {
  acquireDataDirLock,
  type AppDatabaseOptions,
  closeDatabases,
  configureLogging,
  copyRows,
  DataDirLockedError,
  isUniqueViolation,
  loadConfig,
  migrateAppDatabases,
  openAppDatabase,
  revertLastMigration,
  type ServiceConfig,
  toInt,
} from '@app/infra';

// Creating a PGlite data directory runs initdb (a few seconds).
jest.setTimeout(30_000);
configureLogging({ level: 'error' });

// ---------------------------------------------------------------------------------------------
// A tiny app: one entity and two migrations, parameterised by schema.

interface WidgetRow {
  id: string;
  key: string;
  size: string;
  createdAt: Date;
}

function widgetEntity(schema: string) {
  @Entity({ name: 'widgets', schema })
  class Widget implements WidgetRow {
    @PrimaryGeneratedColumn('uuid') id!: string;
    @Column({ type: 'text' }) key!: string;
    @Column({ type: 'bigint', default: 0 }) size!: string;
    @CreateDateColumn({ type: 'timestamptz', name: 'created_at' }) createdAt!: Date;
  }
  return Widget;
}

function migrationsFor(schema: string): Array<new () => MigrationInterface> {
  class CreateWidgets1700000000001 implements MigrationInterface {
    name = 'CreateWidgets1700000000001';
    async up(q: QueryRunner): Promise<void> {
      // several statements in one string: the simple query protocol (migrations rely on it)
      await q.query(`
        CREATE TABLE "${schema}"."widgets" (
          id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          key text NOT NULL CONSTRAINT widgets_key_key UNIQUE,
          size bigint NOT NULL DEFAULT 0,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX widgets_created_at_idx ON "${schema}"."widgets" (created_at);
        COMMENT ON TABLE "${schema}"."widgets" IS 'test widgets';
      `);
    }
    async down(q: QueryRunner): Promise<void> {
      await q.query(`DROP TABLE "${schema}"."widgets"`);
    }
  }
  class AddWidgetNote1700000000002 implements MigrationInterface {
    name = 'AddWidgetNote1700000000002';
    async up(q: QueryRunner): Promise<void> {
      await q.query(`ALTER TABLE "${schema}"."widgets" ADD COLUMN note text`);
    }
    async down(q: QueryRunner): Promise<void> {
      await q.query(`ALTER TABLE "${schema}"."widgets" DROP COLUMN note`);
    }
  }
  return [CreateWidgets1700000000001, AddWidgetNote1700000000002];
}

const entityCache = new Map<string, ReturnType<typeof widgetEntity>>();
function appOptions(schema: string, migrate?: boolean): AppDatabaseOptions & { Widget: ReturnType<typeof widgetEntity> } {
  let Widget = entityCache.get(schema);
  if (!Widget) entityCache.set(schema, (Widget = widgetEntity(schema)));
  return { schema, entities: [Widget], migrations: migrationsFor(schema), ...(migrate === undefined ? {} : { migrate }), Widget };
}

async function tableExists(ds: DataSource, schema: string, table: string): Promise<boolean> {
  const rows: Array<{ n: string }> = await ds.query('SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [
    schema,
    table,
  ]);
  return toInt(rows[0].n) === 1;
}

async function columnExists(ds: DataSource, schema: string, table: string, column: string): Promise<boolean> {
  const rows: Array<{ n: string }> = await ds.query(
    'SELECT count(*) AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = $3',
    [schema, table, column],
  );
  return toInt(rows[0].n) === 1;
}

async function appliedMigrations(ds: DataSource, schema: string): Promise<string[]> {
  const rows: Array<{ name: string }> = await ds.query(`SELECT name FROM "${schema}"."migrations" ORDER BY id`);
  return rows.map((r) => r.name);
}

async function countKey(ds: DataSource, schema: string, key: string): Promise<number> {
  const rows: Array<{ n: unknown }> = await ds.query(`SELECT count(*) AS n FROM "${schema}"."widgets" WHERE key = $1`, [key]);
  return toInt(rows[0].n);
}

const sleep = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms));

// ---------------------------------------------------------------------------------------------
// The two adapters, chosen by config only.

interface AdapterFixture {
  readonly name: string;
  /** Whether every DataSource shares one session (queries wait for an open transaction). */
  readonly sharedSession: boolean;
  setUp(): Promise<ServiceConfig>;
  tearDown(): Promise<void>;
}

// The server's maintenance database, which every PostgreSQL has.
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function postgresFixture(): AdapterFixture {
  const database = `t_${randomBytes(6).toString('hex')}`;
  let dataDir = '';
  return {
    name: 'PostgreSQL',
    sharedSession: false,
    async setUp() {
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.end();
      dataDir = await mkdtemp(join(tmpdir(), 'db-medium-pg-'));
      return loadConfig({ DATA_DIR: dataDir, DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}` });
    },
    async tearDown() {
      await closeDatabases();
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A closed PGlite data directory kept from the first fixture, to spare the next one an initdb. */
let pgliteTemplate: string | null = null;
const templateRoot = join(tmpdir(), `db-medium-template-${process.pid}`);

function pgliteFixture(): AdapterFixture {
  let root = '';
  return {
    name: 'embedded PGlite',
    sharedSession: true,
    async setUp() {
      root = await mkdtemp(join(tmpdir(), 'db-medium-pglite-'));
      // a DATA_DIR that does not exist yet
      return loadConfig({ DATA_DIR: join(root, 'fresh', 'data') });
    },
    async tearDown() {
      await closeDatabases();
      await rm(templateRoot, { recursive: true, force: true });
      await cp(join(root, 'fresh', 'data', 'db'), join(templateRoot, 'db'), { recursive: true });
      pgliteTemplate = join(templateRoot, 'db');
      await rm(root, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------

describe.each([
  ['PostgreSQL', postgresFixture],
  ['embedded PGlite', pgliteFixture],
])('app database on %s', (_name, makeFixture) => {
  const fixture = makeFixture();
  let config: ServiceConfig;
  let ds: DataSource;
  const app = appOptions('app_main');

  beforeAll(async () => {
    config = await fixture.setUp();
    ds = await openAppDatabase(config, app);
  });
  afterAll(async () => {
    await fixture.tearDown();
  });

  it('migrations create the schema, the tables and <schema>.migrations; down reverts the last one', async () => {
    expect(await tableExists(ds, 'app_main', 'widgets')).toBe(true);
    expect(await columnExists(ds, 'app_main', 'widgets', 'note')).toBe(true);
    expect(await tableExists(ds, 'app_main', 'migrations')).toBe(true);
    expect(await tableExists(ds, 'public', 'migrations')).toBe(false);
    expect(await appliedMigrations(ds, 'app_main')).toEqual(['CreateWidgets1700000000001', 'AddWidgetNote1700000000002']);

    await expect(revertLastMigration(config, app)).resolves.toBe('AddWidgetNote1700000000002');
    expect(await columnExists(ds, 'app_main', 'widgets', 'note')).toBe(false);
    expect(await tableExists(ds, 'app_main', 'widgets')).toBe(true);
    expect(await appliedMigrations(ds, 'app_main')).toEqual(['CreateWidgets1700000000001']);

    await expect(revertLastMigration(config, app)).resolves.toBe('CreateWidgets1700000000001');
    expect(await tableExists(ds, 'app_main', 'widgets')).toBe(false);
    expect(await appliedMigrations(ds, 'app_main')).toEqual([]);

    // migrate: false leaves them pending; migrateAppDatabases applies them
    const again = await openAppDatabase(config, appOptions('app_main', false));
    expect(await tableExists(again, 'app_main', 'widgets')).toBe(false);
    await again.destroy();
    await expect(migrateAppDatabases(config, [app])).resolves.toEqual([
      { schema: 'app_main', applied: ['CreateWidgets1700000000001', 'AddWidgetNote1700000000002'] },
    ]);
    expect(await appliedMigrations(ds, 'app_main')).toEqual(['CreateWidgets1700000000001', 'AddWidgetNote1700000000002']);
    expect(await columnExists(ds, 'app_main', 'widgets', 'note')).toBe(true);
  });

  it('replicas starting together run each migration exactly once', async () => {
    const replicas = await Promise.all([1, 2, 3, 4].map(() => openAppDatabase(config, appOptions('app_replicas'))));
    expect(await appliedMigrations(ds, 'app_replicas')).toEqual(['CreateWidgets1700000000001', 'AddWidgetNote1700000000002']);
    for (const replica of replicas) expect(await replica.getRepository(appOptions('app_replicas').Widget).count()).toBe(0);
    await Promise.all(replicas.map((r) => r.destroy()));
  });

  it('a unique-key race: exactly one of 10 concurrent transactions wins, the others get 23505', async () => {
    const { Widget } = app;
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        ds.transaction(async (manager) => {
          await manager.query('SELECT 1');
          await manager.getRepository(Widget).insert({ key: 'race', size: String(i) });
        }),
      ),
    );
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Record<string, unknown>);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(failures).toHaveLength(9);
    for (const err of failures) {
      expect(isUniqueViolation(err)).toBe(true);
      expect(isUniqueViolation(err, 'widgets_key_key')).toBe(true);
      expect(isUniqueViolation(err, 'another_constraint')).toBe(false);
      expect(err.code).toBe('23505');
      expect((err.driverError as Record<string, unknown>).code).toBe('23505');
      expect(err.constraint).toBe('widgets_key_key');
    }
    expect(await countKey(ds, 'app_main', 'race')).toBe(1);
    expect(isUniqueViolation(new Error('x'))).toBe(false);
    await expect(ds.query('SELECT * FROM app_main.no_such_table')).rejects.toMatchObject({ code: '42P01' });
  });

  it('a rollback really rolls back', async () => {
    const { Widget } = app;
    await expect(
      ds.transaction(async (manager) => {
        await manager.getRepository(Widget).insert({ key: 'rolled-back' });
        expect(await manager.getRepository(Widget).countBy({ key: 'rolled-back' })).toBe(1);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await countKey(ds, 'app_main', 'rolled-back')).toBe(0);

    const runner = ds.createQueryRunner();
    await runner.startTransaction();
    await runner.manager.getRepository(Widget).insert({ key: 'rolled-back-2' });
    await runner.rollbackTransaction();
    await runner.release();
    expect(await countKey(ds, 'app_main', 'rolled-back-2')).toBe(0);

    // a failed statement aborts the transaction; after the rollback the session is usable again
    await expect(
      ds.transaction(async (manager) => {
        await manager.getRepository(Widget).insert({ key: 'rolled-back-3' });
        await manager.query('SELECT 1/0');
      }),
    ).rejects.toMatchObject({ code: '22012' });
    expect(await countKey(ds, 'app_main', 'rolled-back-3')).toBe(0);
  });

  it('uncommitted rows are invisible to a concurrent query', async () => {
    const { Widget } = app;
    for (const outcome of ['rollback', 'commit'] as const) {
      const key = `isolated-${outcome}`;
      const runner = ds.createQueryRunner();
      await runner.startTransaction();
      await runner.manager.getRepository(Widget).insert({ key });
      expect(await runner.manager.getRepository(Widget).countBy({ key })).toBe(1);

      const concurrent = countKey(ds, 'app_main', key);
      const early = await Promise.race([concurrent, sleep(300)]);
      if (fixture.sharedSession)
        expect(early).toBe('timeout'); // waits for the session
      else expect(early).toBe(0); // runs at once on another connection, without the row

      if (outcome === 'rollback') await runner.rollbackTransaction();
      else await runner.commitTransaction();
      await runner.release();
      // PostgreSQL ran it at once (before the commit); the shared session ran it after the transaction
      expect(await concurrent).toBe(fixture.sharedSession && outcome === 'commit' ? 1 : 0);
      expect(await countKey(ds, 'app_main', key)).toBe(outcome === 'commit' ? 1 : 0);
    }
  });

  it('returns the same JS types on both adapters: int8/count as strings, timestamps as Date', async () => {
    const { Widget } = app;
    const repo = ds.getRepository(Widget);
    const big = '9007199254740993'; // 2^53 + 1: not representable as a JS number
    await repo.insert([
      { key: 'types-1', size: big },
      { key: 'types-2', size: '2' },
      { key: 'types-3', size: '3' },
    ]);
    const [row] = await ds.query(
      `SELECT count(*) AS n, sum(size) AS total, max(size) AS biggest, max(created_at) AS latest,
              now()::timestamp AS local, current_date AS day, 1.5::numeric AS num, 7::int4 AS small,
              '{"a":[1,2]}'::jsonb AS doc, '\\x6869'::bytea AS bin, ARRAY['x','y'] AS arr
         FROM app_main.widgets WHERE key LIKE 'types-%'`,
    );
    expect(row.n).toBe('3');
    expect(toInt(row.n)).toBe(3);
    expect(row.total).toBe('9007199254740998');
    expect(row.biggest).toBe(big);
    expect(row.latest).toBeInstanceOf(Date);
    expect(row.local).toBeInstanceOf(Date);
    expect(row.day).toBeInstanceOf(Date);
    expect(row.num).toBe('1.5');
    expect(row.small).toBe(7);
    expect(row.doc).toEqual({ a: [1, 2] });
    expect(Buffer.isBuffer(row.bin) && row.bin.toString()).toBe('hi');
    expect(row.arr).toEqual(['x', 'y']);
    expect(() => JSON.stringify(row)).not.toThrow();

    expect(await repo.count({ where: { key: 'types-1' } })).toBe(1);
    expect(typeof (await repo.count())).toBe('number');
    const entity = await repo.findOneByOrFail({ key: 'types-1' });
    expect(entity.size).toBe(big);
    expect(entity.createdAt).toBeInstanceOf(Date);
    expect(entity.id).toMatch(/^[0-9a-f-]{36}$/);

    expect(toInt(12)).toBe(12);
    expect(toInt(12n)).toBe(12);
    expect(() => toInt(big)).toThrow(TypeError);
    expect(() => toInt('1.5')).toThrow(TypeError);
    expect(() => toInt(null)).toThrow(TypeError);
  });

  it('copyRows appends a batch in one statement, every value intact; a refused value fails the whole batch', async () => {
    const widgets = { schema: 'app_main', table: 'widgets', columns: ['key', 'size', 'note'] };
    const awkward = ['tab\there', 'new\nline', 'cr\rlf\r\n', 'back\\slash \\N \\.', '\\.', '', 'ünïcødé ✓ 😀', 'lone \uD800 surrogate'];
    const rows = [...awkward.map((note, i) => [`copy-${i}`, i, note]), ['copy-null', '9007199254740993', null], ['copy-number', 2 ** 40, 'x']];
    await copyRows(ds, widgets, rows);
    const stored: Array<{ key: string; size: string; note: string | null; tx: string }> = await ds.query(
      `SELECT key, size, note, xmin::text AS tx FROM app_main.widgets WHERE key LIKE 'copy-%' ORDER BY key`,
    );
    expect(new Set(stored.map((r) => r.tx)).size).toBe(1); // one statement, one transaction
    expect(Object.fromEntries(stored.map((r) => [r.key, [r.size, r.note]]))).toEqual({
      ...Object.fromEntries(awkward.map((note, i) => [`copy-${i}`, [String(i), note.replace('\uD800', '\uFFFD')]])),
      'copy-null': ['9007199254740993', null],
      'copy-number': [String(2 ** 40), 'x'],
    });

    // a duplicate key in the middle: nothing of the batch is stored, with PostgreSQL's error
    await expect(
      copyRows(ds, widgets, [
        ['copy-fresh-1', 1, null],
        ['copy-0', 2, null],
        ['copy-fresh-2', 3, null],
      ]),
    ).rejects.toMatchObject({ code: '23505' });
    await expect(copyRows(ds, widgets, [['copy-fresh-3', 'not a number', null]])).rejects.toMatchObject({ code: '22P02' });
    expect(await countKey(ds, 'app_main', 'copy-fresh-1')).toBe(0);
    expect(await countKey(ds, 'app_main', 'copy-fresh-3')).toBe(0);
    // the connection is usable afterwards, and nothing is left waiting for the session
    await copyRows(ds, widgets, [['copy-after', 1, null]]);
    expect(await countKey(ds, 'app_main', 'copy-after')).toBe(1);
    await copyRows(ds, widgets, []);

    // refused before PostgreSQL sees them: NUL, a row of the wrong width, a number that is not finite
    await expect(copyRows(ds, widgets, [['copy-nul', 1, 'a\u0000b']])).rejects.toThrow('copy row 0, value 2: text cannot contain NUL');
    await expect(copyRows(ds, widgets, [['copy-short', 1]])).rejects.toThrow('copy row 0 has 2 values, expected 3');
    await expect(copyRows(ds, widgets, [['copy-nan', Number.NaN, null]])).rejects.toThrow('not a finite number');
    await expect(copyRows(ds, { ...widgets, schema: 'app_main; DROP' }, [['copy-x', 1, null]])).rejects.toThrow();
  });

  it('copyRows waits for a transaction that holds the embedded session, and runs beside one on PostgreSQL', async () => {
    const runner = ds.createQueryRunner();
    await runner.startTransaction();
    await runner.manager.getRepository(app.Widget).insert({ key: 'copy-beside-tx' });
    const copied = copyRows(ds, { schema: 'app_main', table: 'widgets', columns: ['key'] }, [['copy-during-tx']]).then(() => 'copied' as const);
    expect(await Promise.race([copied, sleep(300)])).toBe(fixture.sharedSession ? 'timeout' : 'copied');
    await runner.rollbackTransaction();
    await runner.release();
    await copied;
    expect(await countKey(ds, 'app_main', 'copy-during-tx')).toBe(1);
    expect(await countKey(ds, 'app_main', 'copy-beside-tx')).toBe(0);
  });

  it('runs multi-statement SQL without parameters', async () => {
    await ds.query(`INSERT INTO app_main.widgets (key) VALUES ('multi-1'); INSERT INTO app_main.widgets (key) VALUES ('multi-2')`);
    expect(await countKey(ds, 'app_main', 'multi-1')).toBe(1);
    expect(await countKey(ds, 'app_main', 'multi-2')).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('embedded PGlite: one instance per process, DATA_DIR lock', () => {
  let root: string;
  let config: ServiceConfig;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'db-medium-embedded-'));
    config = loadConfig({ DATA_DIR: join(root, 'data') });
    if (pgliteTemplate) await cp(pgliteTemplate, join(config.dataDir, 'db'), { recursive: true });
  });
  afterAll(async () => {
    await closeDatabases();
    await rm(root, { recursive: true, force: true });
    await rm(templateRoot, { recursive: true, force: true });
  });

  it('serves several apps (schemas) from one PGlite instance, isolated from each other', async () => {
    const x = appOptions('app_x');
    const y = appOptions('app_y');
    const [dsX, dsY] = await Promise.all([openAppDatabase(config, x), openAppDatabase(config, y)]);
    expect(await readFile(join(config.dataDir, 'service.lock'), 'utf8')).toBe(`${process.pid}\n`);

    // concurrent transactions across both DataSources share the session without interfering
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? dsX : dsY).transaction(async (manager) => {
          await manager.getRepository(i % 2 ? x.Widget : y.Widget).insert({ key: `k${i}` });
          await manager.query('SELECT pg_sleep(0.001)');
        }),
      ),
    );
    expect(await dsX.getRepository(x.Widget).count()).toBe(10);
    expect(await dsY.getRepository(y.Widget).count()).toBe(10);
    expect(await countKey(dsX, 'app_x', 'k1')).toBe(1);
    expect(await countKey(dsX, 'app_x', 'k2')).toBe(0);
    expect(await countKey(dsY, 'app_y', 'k2')).toBe(1);

    // a transaction of one app makes the other app's query wait, then it sees the committed row
    const runner = dsX.createQueryRunner();
    await runner.startTransaction();
    await runner.manager.getRepository(x.Widget).insert({ key: 'cross' });
    const fromY = dsY.query(`SELECT count(*) AS n FROM app_x.widgets WHERE key = 'cross'`);
    expect(await Promise.race([fromY, sleep(200)])).toBe('timeout');
    await runner.commitTransaction();
    await runner.release();
    expect(await fromY).toEqual([{ n: '1' }]);
  });

  it('rolls back a transaction left open when its connection is released', async () => {
    const x = appOptions('app_x');
    const dsX = await openAppDatabase(config, x);
    const runner = dsX.createQueryRunner();
    await runner.startTransaction();
    await runner.manager.getRepository(x.Widget).insert({ key: 'abandoned' });
    await runner.release(); // no commit, no rollback
    expect(await countKey(dsX, 'app_x', 'abandoned')).toBe(0);
  });

  it('reopens the same DATA_DIR with its data and without re-running migrations', async () => {
    await closeDatabases();
    expect(existsSync(join(config.dataDir, 'service.lock'))).toBe(false);
    const x = appOptions('app_x');
    const dsX = await openAppDatabase(config, x);
    expect(await dsX.getRepository(x.Widget).count()).toBe(11);
    expect(await appliedMigrations(dsX, 'app_x')).toEqual(['CreateWidgets1700000000001', 'AddWidgetNote1700000000002']);
    // nothing replicates an embedded database: a table emptied and loaded in one transaction skips the WAL
    expect(await dsX.query('SHOW wal_level')).toEqual([{ wal_level: 'minimal' }]);
    // one DATA_DIR per process
    await expect(openAppDatabase(loadConfig({ DATA_DIR: join(root, 'other') }), x)).rejects.toThrow(/already open on DATA_DIR/);
  });

  it('refuses a DATA_DIR locked by another live process, with a clear message', async () => {
    const dataDir = join(root, 'locked');
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'service.lock'), `${process.ppid}\n`);
    await closeDatabases();

    const attempt = openAppDatabase(loadConfig({ DATA_DIR: dataDir }), appOptions('app_x'));
    await expect(attempt).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(attempt).rejects.toThrow(`Another process (pid ${process.ppid}) is using DATA_DIR ${dataDir}: stop it first`);
    expect(existsSync(join(dataDir, 'db'))).toBe(false); // PGlite was never opened
    expect(await readFile(join(dataDir, 'service.lock'), 'utf8')).toBe(`${process.ppid}\n`);
    expect(() => acquireDataDirLock(dataDir)).toThrow(/Another process \(pid \d+\) is using DATA_DIR/);
  });

  it('takes over a stale lock left by a dead process and releases it', async () => {
    const dataDir = join(root, 'stale');
    await mkdir(dataDir, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    expect(dead).toBeGreaterThan(0);
    await writeFile(join(dataDir, 'service.lock'), `${dead}\n`);

    const lock = acquireDataDirLock(dataDir);
    expect(await readFile(lock.path, 'utf8')).toBe(`${process.pid}\n`);
    const again = acquireDataDirLock(dataDir); // re-entrant within the process
    again.release();
    expect(existsSync(lock.path)).toBe(true);
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });
});
