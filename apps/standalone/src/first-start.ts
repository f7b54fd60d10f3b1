import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { hasEmbeddedDatabase, type ServiceConfig } from '@app/infra';

/**
 * The first start on an empty DATA_DIR creates the embedded database (PostgreSQL's initdb) and
 * runs every app's migrations, about a hundred. In the service's own process that work stays
 * in its memory for good: the database's WebAssembly memory grows and never shrinks, and the
 * C allocator keeps much of what the optimizing compiler took meanwhile; the first start sat
 * 60-70 MiB above every later one (docs/performance.md "Memory of the embedded default"). So
 * main.ts has it done by a child process that then ends (create-database.ts, what `npm run
 * migrate` does), and the service opens the database as on any later start.
 *
 * The child takes DATA_DIR's lock itself and gives it back when it ends; the service takes it
 * after, so another process starting on the same DATA_DIR in between is refused by the lock
 * (or refuses this one), as two services always are.
 */
export function createsEmbeddedDatabase(config: ServiceConfig): boolean {
  return !config.databaseUrl && !hasEmbeddedDatabase(config.dataDir);
}

/** Runs create-database.js in a child process with this process's Node flags and environment; rejects unless it succeeds. */
export async function createEmbeddedDatabaseApart(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const entry = fileURLToPath(new URL('./create-database.js', import.meta.url));
  // A debugger's flags are left out: the child would wait for a debugger of its own.
  const flags = process.execArgv.filter((arg) => !arg.startsWith('--inspect'));
  const child = spawn(process.execPath, [...flags, entry], { env, stdio: 'inherit' });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) {
    throw new Error(
      `creating the embedded database failed (a child process, ended by ${signal ? `signal ${signal}` : `exit code ${code}`}; its log lines say why)`,
    );
  }
}
