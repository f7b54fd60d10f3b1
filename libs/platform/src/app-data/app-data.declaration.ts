import type { BackupApp } from '@app/contracts';
import type { MessageBus } from '@app/infra';
import type { EntityManager } from 'typeorm';

/** A column pair naming stored files: every non-null key is a file in the files bucket of that size. */
export interface StoredFileColumns {
  readonly table: string;
  readonly key: string;
  readonly size: string;
}

/**
 * What of an app's schema a backup holds (docs/architecture.md "Backups: each app's data").
 * Every table of the schema must be either in `tables` or in `excluded` (the export refuses
 * a schema with a table in neither, so a new table cannot be left out silently); the
 * migrations table is never part of it (a restore needs the same migrations applied).
 */
export interface AppDataDeclaration {
  readonly app: BackupApp;
  /** Dumped and loaded in this order: a table after the tables it references. */
  readonly tables: readonly string[];
  /** Tables a backup neither reads nor replaces, each with the reason (also tables that may not exist yet). */
  readonly excluded: Readonly<Record<string, string>>;
  /** Where the rows name stored files (the backup copies those files). */
  readonly files?: readonly StoredFileColumns[];
  /**
   * Runs inside the import's transaction after the rows are loaded; what it returns runs
   * after the commit (to announce what changed besides the app's `data.replaced` event).
   */
  readonly afterImport?: (manager: EntityManager) => Promise<(bus: MessageBus) => void>;
}

/** The table TypeORM keeps its applied migrations in, in every schema. */
export const MIGRATIONS_TABLE = 'migrations';
