import { type DataSource, EntityManager } from 'typeorm';

export type Row = Record<string, unknown>;

export interface SqlResult {
  readonly rows: Row[];
  /** Rows inserted, updated or deleted. */
  readonly affected: number;
}

/**
 * Planner settings for one statement, applied with SET LOCAL in the statement's transaction (one
 * of its own when the executor is not in a transaction): `jit: false` for a query whose row
 * estimates are rarely current (it would cross the JIT cost threshold and spend seconds
 * compiling), `workMem` for a sort that should stay in memory.
 */
export interface SqlSettings {
  readonly jit?: false;
  readonly workMem?: '64MB';
}

/**
 * The one way to run raw SQL (docs/architecture.md "Code layout"): one parameterised statement
 * ($1, $2...), answering rows and affected count alike for every kind of statement (TypeORM's
 * plain query() shapes UPDATE/DELETE results differently). Inside a transaction pass its
 * EntityManager: on the embedded database a statement outside an open transaction waits for it
 * (one connection serves the whole process).
 */
export async function sql(executor: DataSource | EntityManager, text: string, params: readonly unknown[] = [], settings?: SqlSettings): Promise<SqlResult> {
  if (settings) return withSettings(executor, settings, (manager) => sql(manager, text, params));
  if (executor instanceof EntityManager && executor.queryRunner) {
    const result = await executor.queryRunner.query(text, [...params], true);
    return { rows: (result.records ?? []) as Row[], affected: result.affected ?? 0 };
  }
  const runner = (executor instanceof EntityManager ? executor.connection : executor).createQueryRunner();
  try {
    const result = await runner.query(text, [...params], true);
    return { rows: (result.records ?? []) as Row[], affected: result.affected ?? 0 };
  } finally {
    await runner.release();
  }
}

async function withSettings<T>(executor: DataSource | EntityManager, settings: SqlSettings, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const set = [settings.jit === false ? 'SET LOCAL jit = off' : '', settings.workMem ? `SET LOCAL work_mem = '${settings.workMem}'` : '']
    .filter(Boolean)
    .join('; ');
  const inTransaction = async (manager: EntityManager): Promise<T> => {
    if (set) await sql(manager, set);
    return work(manager);
  };
  if (executor instanceof EntityManager && executor.queryRunner?.isTransactionActive) return inTransaction(executor);
  return (executor instanceof EntityManager ? executor.connection : executor).transaction(inTransaction);
}

/**
 * A repository is bound to an EntityManager: the DataSource's own, or a transaction's (see a
 * store's transaction()), so that a query inside a transaction never waits for that
 * transaction (the embedded database has one connection).
 */
export abstract class BaseRepository {
  constructor(protected readonly manager: EntityManager) {}
}
