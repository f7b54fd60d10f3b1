import type { DataSource, MigrationInterface, EntitySchema } from 'typeorm';

export interface AppDatabaseOptions {
  /** PostgreSQL schema the app owns; every entity names it explicitly (no search_path games). */
  readonly schema: string;
  // TypeORM's own type for an entity list: a class (any constructor) or a schema.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- as TypeORM declares it
  readonly entities: ReadonlyArray<Function | EntitySchema>;
  /** Hand-written migrations, oldest first; their `down` must work. */
  readonly migrations: ReadonlyArray<new () => MigrationInterface>;
  /** Run pending migrations when connecting (default true; `npm run migrate` runs them ahead). */
  readonly migrate?: boolean;
}

export type { DataSource };
