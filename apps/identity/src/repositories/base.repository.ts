import type { EntityManager } from 'typeorm';

/**
 * Every query of the identity app lives in a repository class. A repository is bound to an
 * EntityManager: the DataSource's own, or a transaction's (see IdentityStore.transaction),
 * so that a query inside a transaction never waits for that transaction (STACK: PGlite).
 */
export abstract class BaseRepository {
  constructor(protected readonly manager: EntityManager) {}
}

/** count()/int8 arrive as string (pg), number or bigint (PGlite): normalise here, once. */
export function toInt(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'bigint' ? Number(value) : Number(value);
}

export function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

export function toNullableDate(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}
