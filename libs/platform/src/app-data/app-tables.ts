import { quoteIdent, schemaTables, sql, storedColumns, type TableColumns } from '@app/infra';
import type { EntityManager } from 'typeorm';
import { type AppDataDeclaration, MIGRATIONS_TABLE } from './app-data.declaration.js';

/**
 * The declared tables with their stored columns, read inside the caller's transaction. Refuses
 * (a programming error, not the caller's) a schema whose tables the declaration does not
 * account for: a declared table that is missing, or a table neither declared nor excluded.
 */
export async function declaredTables(manager: EntityManager, declaration: AppDataDeclaration): Promise<TableColumns[]> {
  const schema = declaration.app;
  const present = new Set(await schemaTables(manager, schema));
  const declared = new Set(declaration.tables);
  const unaccounted = [...present].filter((t) => t !== MIGRATIONS_TABLE && !declared.has(t) && !(t in declaration.excluded));
  if (unaccounted.length > 0) throw new Error(`${schema}: tables neither backed up nor excluded: ${unaccounted.join(', ')}`);
  const missing = declaration.tables.filter((t) => !present.has(t));
  if (missing.length > 0) throw new Error(`${schema}: declared tables missing from the database: ${missing.join(', ')}`);
  const tables: TableColumns[] = [];
  for (const table of declaration.tables) tables.push({ schema, table, columns: await storedColumns(manager, { schema, table }) });
  return tables;
}

/** The newest migration applied to the app's schema (null before any). */
export async function newestMigration(manager: EntityManager, schema: string): Promise<string | null> {
  const { rows } = await sql(manager, `SELECT name FROM ${quoteIdent(schema)}.${MIGRATIONS_TABLE} ORDER BY timestamp DESC, id DESC LIMIT 1`);
  return rows.length ? String(rows[0].name) : null;
}

/** Whether `name` is applied to the app's schema. */
export async function migrationApplied(manager: EntityManager, schema: string, name: string): Promise<boolean> {
  const { rows } = await sql(manager, `SELECT 1 FROM ${quoteIdent(schema)}.${MIGRATIONS_TABLE} WHERE name = $1`, [name]);
  return rows.length > 0;
}

/** Empties the tables (one statement; refused if a table outside them references them). */
export async function emptyTables(manager: EntityManager, tables: readonly TableColumns[]): Promise<void> {
  if (tables.length === 0) return;
  await sql(manager, `TRUNCATE ${tables.map((t) => `${quoteIdent(t.schema)}.${quoteIdent(t.table)}`).join(', ')}`);
}

/**
 * Drops the tables' indexes that back no constraint (primary keys and unique constraints stay)
 * and returns the statements that make them again: a load then builds each index once, from
 * sorted entries, instead of entry by entry (pg_restore's order). Inside the caller's
 * transaction, so a failed load rolls the drop back too.
 */
export async function setIndexesAside(manager: EntityManager, tables: readonly TableColumns[]): Promise<string[]> {
  if (tables.length === 0) return [];
  const { rows } = await sql(
    manager,
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(x.relname) AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
       JOIN pg_class x ON x.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = $1 AND t.relname = ANY($2::text[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
      ORDER BY x.relname`,
    [tables[0].schema, tables.map((t) => t.table)],
  );
  for (const row of rows) await sql(manager, `DROP INDEX ${String(row.name)}`);
  return rows.map((row) => String(row.definition));
}

/** Makes again the indexes setIndexesAside dropped. */
export async function restoreIndexes(manager: EntityManager, definitions: readonly string[]): Promise<void> {
  for (const definition of definitions) await sql(manager, definition);
}

/**
 * Sets every sequence owned by a column of the tables (identity and serial columns) so that
 * the next value follows the largest loaded one (or starts afresh on an empty table).
 */
export async function resetSequences(manager: EntityManager, tables: readonly TableColumns[]): Promise<void> {
  for (const { schema, table, columns } of tables) {
    const name = `${quoteIdent(schema)}.${quoteIdent(table)}`;
    for (const column of columns) {
      const { rows } = await sql(manager, `SELECT pg_get_serial_sequence($1, $2) AS seq`, [name, column]);
      const sequence = rows[0]?.seq;
      if (typeof sequence !== 'string') continue;
      await sql(
        manager,
        `SELECT CASE WHEN m IS NULL THEN setval($1::regclass, s.seqstart, false) ELSE setval($1::regclass, m, true) END
           FROM (SELECT max(${quoteIdent(column)}) AS m FROM ${name}) AS loaded, pg_sequence s WHERE s.seqrelid = $1::regclass`,
        [sequence],
      );
    }
  }
}
