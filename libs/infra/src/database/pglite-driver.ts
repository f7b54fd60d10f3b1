import { EventEmitter } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PglitePgConnection } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { JsonLogger } from '../logging/logger.js';

/**
 * The embedded database: ONE PGlite instance per process, exposed to TypeORM through a small
 * `driver:` object (in place of the `pg` module TypeORM's PostgresDriver would load).
 *
 * PGlite is a single session. Its pool here has size one: `connect()` hands out a lease on
 * that session under a FIFO lock, and a TypeORM QueryRunner keeps its lease from its first
 * query until it is released — so a transaction holds the session until it ends, and a
 * concurrent query (from any DataSource of the process) waits for it instead of seeing
 * uncommitted rows or being rolled back with it.
 *
 * The session speaks the PostgreSQL protocol to PGlite through `pg.Client` (PGlite's own
 * node-postgres connection adapter), so results, type parsing (int8 as string, timestamps
 * as Date, bytea as Buffer, ...) and errors (`code`, `constraint`, `detail`) are exactly those
 * of the `pg` driver used with a PostgreSQL server. Queries without parameters use the simple
 * query protocol, so multi-statement SQL (migrations) works.
 */

type Callback = (err: Error | null, result?: pg.QueryResult) => void;
type ConnectCallback = (err: Error | null, client?: SessionLease, release?: (err?: unknown) => void) => void;

const WAIT_WARNING_MS = 10_000;

/** How the embedded database runs (config: EMBEDDED_DB_SHARED_BUFFERS_MB). */
export interface EmbeddedSettings {
  /**
   * PostgreSQL's shared_buffers, in MiB. PGlite's own default (128 MB) is all touched at start
   * and stays resident in the WebAssembly memory, which never shrinks: the largest single
   * part of the embedded default's memory (docs/performance.md "Memory of the embedded default").
   */
  readonly sharedBuffersMb: number;
}

export const DEFAULT_EMBEDDED_SETTINGS: EmbeddedSettings = { sharedBuffersMb: 16 };

/**
 * wal_level=minimal (nothing replicates or archives an embedded database): a table emptied in
 * the transaction that loads it is then written without WAL, as a restore does (100,000 device
 * rows: 0.46 s of CPU instead of 0.62). Crash recovery is unchanged.
 */
const WAL_PARAMS = ['-c', 'wal_level=minimal', '-c', 'max_wal_senders=0'];

/** A FIFO mutex. */
class FifoLock {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Hands the lock to the oldest waiter, or frees it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }
}

/** One holder's use of the session; unusable once released. */
export class SessionLease extends EventEmitter {
  private released = false;

  constructor(private readonly owner: EmbeddedDatabase) {
    super();
  }

  get isReleased(): boolean {
    return this.released;
  }

  query(text: string, callback: Callback): void;
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  query(text: string, values: unknown[] | undefined, callback: Callback): void;
  query(text: string, values?: unknown[] | Callback, callback?: Callback): Promise<pg.QueryResult> | void {
    if (typeof values === 'function') {
      callback = values;
      values = undefined;
    }
    const result = this.released ? Promise.reject(new Error('embedded database: query on a released connection')) : this.owner.run(text, values);
    if (!callback) return result;
    const cb = callback;
    result.then(
      (r) => cb(null, r),
      (e: Error) => cb(e),
    );
  }

  /**
   * `COPY <into> FROM` rows in the text format (see copyRows): PGlite takes COPY data as a
   * blob, not over its wire protocol (COPY FROM STDIN there aborts the WASM runtime).
   */
  async copyFrom(into: string, data: Buffer): Promise<void> {
    if (this.released) throw new Error('embedded database: copy on a released connection');
    await this.owner.copyFromBlob(into, data);
  }

  /** `COPY (<query>) TO` in the text format, whole, as PGlite hands COPY output over: a blob. */
  async copyTo(query: string): Promise<Buffer> {
    if (this.released) throw new Error('embedded database: copy on a released connection');
    return this.owner.copyToBlob(query);
  }

  /** pg-pool style: give the session back to the next waiter. */
  release(_err?: unknown): void {
    if (this.released) return;
    this.released = true;
    this.removeAllListeners();
    this.owner.giveBack(this);
  }
}

export class EmbeddedDatabase {
  private readonly lock = new FifoLock();
  private current: SessionLease | null = null;
  /** Transaction status from the last ReadyForQuery: I idle, T in a transaction, E failed transaction. */
  private transactionStatus = 'I';
  private closed = false;
  private readonly logger = new JsonLogger('database');
  /**
   * The wire-protocol client and the COPY blobs (PGlite's own query) must never overlap on the
   * session: a ROLLBACK sent while a COPY runs (a reader that stopped early) hung both.
   */
  private sessionWork: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly directory: string,
    private readonly pglite: PGlite,
    private readonly client: pg.Client,
    connection: EventEmitter,
  ) {
    connection.on('readyForQuery', (msg?: { status?: string }) => {
      if (msg?.status) this.transactionStatus = msg.status;
    });
    client.on('error', (err: Error) => {
      const lease = this.current;
      if (lease && lease.listenerCount('error') > 0) lease.emit('error', err);
      else this.logger.write('error', 'embedded database session error', { error: err.message });
    });
  }

  /** Opens (creating it when empty) the PGlite database in `directory`. */
  static async open(directory: string, settings: EmbeddedSettings = DEFAULT_EMBEDDED_SETTINGS): Promise<EmbeddedDatabase> {
    await mkdir(directory, { recursive: true });
    const pglite = await PGlite.create(directory, {
      startParams: [...PGlite.defaultStartParams, ...WAL_PARAMS, '-c', `shared_buffers=${settings.sharedBuffersMb}MB`],
    });
    try {
      const connection = new PglitePgConnection({ pglite });
      const client = new pg.Client({ connection } as pg.ClientConfig);
      await client.connect();
      return new EmbeddedDatabase(directory, pglite, client, connection);
    } catch (err) {
      await pglite.close().catch(() => undefined);
      throw err;
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Waits (FIFO) for the session and returns a lease on it. */
  async lease(): Promise<SessionLease> {
    if (this.closed) throw new Error('embedded database is closed');
    const timer = setTimeout(
      () =>
        this.logger.write('warn', 'waiting for the embedded database session', {
          waited_ms: WAIT_WARNING_MS,
          hint: 'a transaction holds the single session: inside a transaction use its manager, never the DataSource',
        }),
      WAIT_WARNING_MS,
    );
    timer.unref();
    try {
      await this.lock.acquire();
    } finally {
      clearTimeout(timer);
    }
    if (this.closed) {
      this.lock.release();
      throw new Error('embedded database is closed');
    }
    const lease = new SessionLease(this);
    this.current = lease;
    return lease;
  }

  /** @internal */
  run(text: string, values: unknown[] | undefined): Promise<pg.QueryResult> {
    return this.oneAtATime(() => this.client.query(text, values));
  }

  private oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const result = this.sessionWork.then(work, work);
    this.sessionWork = result.catch(() => undefined);
    return result;
  }

  /** @internal The session is held by the caller's lease, so nothing else runs meanwhile. */
  async copyFromBlob(into: string, data: Buffer): Promise<void> {
    await this.oneAtATime(() => this.pglite.query(`COPY ${into} FROM '/dev/blob'`, [], { blob: new Blob([data]) }));
  }

  /** @internal As copyFromBlob. */
  async copyToBlob(query: string): Promise<Buffer> {
    const result = await this.oneAtATime(() => this.pglite.query(`COPY (${query}) TO '/dev/blob'`));
    return result.blob ? Buffer.from(await result.blob.arrayBuffer()) : Buffer.alloc(0);
  }

  /** @internal Called by SessionLease.release. */
  giveBack(lease: SessionLease): void {
    if (this.current !== lease) return;
    this.current = null;
    if (this.transactionStatus === 'I' || this.closed) {
      this.lock.release();
      return;
    }
    // A holder left a transaction open: never let the next holder continue inside it.
    this.logger.write('warn', 'embedded database: a connection was released inside a transaction; rolling it back');
    this.client
      .query('ROLLBACK')
      .catch((err: Error) => this.logger.write('error', 'embedded database: rollback on release failed', { error: err.message }))
      .finally(() => this.lock.release());
  }

  /** The object TypeORM's PostgresDriver receives as `driver` (what it uses of `pg`). */
  typeormDriver(): { Pool: new (options?: unknown) => EmbeddedPool; defaults: Record<string, unknown> } {
    // The pool class TypeORM instantiates must reach this database from its constructor.
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- captured by the class expression below
    const db = this;
    return {
      Pool: class extends EmbeddedPool {
        constructor() {
          super(db);
        }
      },
      defaults: {},
    };
  }

  /** Waits (up to `graceMs`) for the current holder, then closes the session and PGlite. */
  async close(graceMs = 5000): Promise<void> {
    if (this.closed) return;
    let timer: NodeJS.Timeout | undefined;
    let gaveUp = false;
    const acquired = await Promise.race([
      this.lock.acquire().then(() => {
        // acquired after giving up: pass it on at once so later waiters wake (and fail)
        if (gaveUp) this.lock.release();
        return true;
      }),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (!acquired) {
      gaveUp = true;
      this.logger.write('warn', 'embedded database: closing while the session is still in use');
    }
    this.closed = true;
    await this.client.end().catch(() => undefined);
    await this.pglite.close();
    // Waiters wake one after another, see `closed`, pass the lock on and fail.
    if (acquired) this.lock.release();
  }
}

/** The pg-pool subset TypeORM uses: connect(callback), on('error'), end(callback). */
export class EmbeddedPool extends EventEmitter {
  private ended = false;

  constructor(private readonly db: EmbeddedDatabase) {
    super();
  }

  connect(): Promise<SessionLease>;
  connect(callback: ConnectCallback): void;
  connect(callback?: ConnectCallback): Promise<SessionLease> | void {
    const leased = this.ended ? Promise.reject(new Error('embedded database pool has ended')) : this.db.lease();
    if (!callback) return leased;
    leased.then(
      (lease) => callback(null, lease, (err?: unknown) => lease.release(err)),
      (err: Error) => callback(err, undefined, () => undefined),
    );
  }

  /** Runs one query on a short lease (pg.Pool#query). */
  async query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    const lease = await this.connect();
    try {
      return await lease.query(text, values);
    } finally {
      lease.release();
    }
  }

  /** Ends this DataSource's pool; the shared PGlite instance stays open (see closeDatabases). */
  end(callback?: (err?: Error) => void): Promise<void> | void {
    this.ended = true;
    if (callback) {
      callback();
      return;
    }
    return Promise.resolve();
  }
}
