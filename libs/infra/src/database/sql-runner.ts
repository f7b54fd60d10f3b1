import { type DataSource, EntityManager } from 'typeorm';

export type Row = Record<string, unknown>;

export interface SqlResult {
  readonly rows: Row[];
  /** Rows inserted, updated or deleted. */
  readonly affected: number;
}

/**
 * Runs one parameterised statement ($1, $2...) and answers rows and affected count alike for
 * every kind of statement (TypeORM's plain query() shapes UPDATE/DELETE results differently).
 * Inside a transaction pass its EntityManager: on the embedded database a statement outside
 * an open transaction waits for it (one connection serves the whole process).
 */
export async function sql(executor: DataSource | EntityManager, text: string, params: readonly unknown[] = []): Promise<SqlResult> {
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

/**
 * A repository is bound to an EntityManager: the DataSource's own, or a transaction's (see a
 * store's transaction()), so that a query inside a transaction never waits for that
 * transaction (the embedded database has one connection).
 */
export abstract class BaseRepository {
  constructor(protected readonly manager: EntityManager) {}
}
