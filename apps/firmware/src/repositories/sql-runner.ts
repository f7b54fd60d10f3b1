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
 * an open transaction waits for it (STACK.md).
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

export function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

export function toBuffer(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value);
  const text = String(value);
  return text.startsWith('\\x') ? Buffer.from(text.slice(2), 'hex') : Buffer.from(text, 'latin1');
}
