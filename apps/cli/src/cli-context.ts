import { acquireDataDirLock, closeDatabases, DataDirLockedError, loadConfig, type ServiceConfig } from '@app/infra';

/**
 * What a command works with: the environment, its two outputs (stdout: the result only;
 * stderr: notes and errors) and the service's configuration, read only when a command needs
 * it, so that help and the commands that need no configuration work whatever the environment holds.
 */
export interface CliContext {
  readonly env: NodeJS.ProcessEnv;
  out(line: string): void;
  err(line: string): void;
  config(): ServiceConfig;
  /**
   * Runs `work` on the service's database (DATABASE_URL, or the embedded one in DATA_DIR,
   * whose lock it holds meanwhile: a running server's database is never opened twice), then
   * closes every database it opened.
   */
  onDatabase<T>(work: (config: ServiceConfig) => Promise<T>): Promise<T>;
}

/** The data directory is in use (exit code 3): the embedded database belongs to the running server. */
export class DatabaseInUseError extends Error {}

export function cliContext(env: NodeJS.ProcessEnv, out: (line: string) => void, err: (line: string) => void): CliContext {
  let config: ServiceConfig | undefined;
  const context: CliContext = {
    env,
    out,
    err,
    config: () => (config ??= loadConfig(env)),
    async onDatabase<T>(work: (config: ServiceConfig) => Promise<T>): Promise<T> {
      const current = context.config();
      let release: () => void = () => undefined;
      if (!current.databaseUrl) {
        try {
          release = acquireDataDirLock(current.dataDir);
        } catch (error) {
          if (error instanceof DataDirLockedError) throw new DatabaseInUseError(error.message);
          throw error;
        }
      }
      try {
        return await work(current);
      } finally {
        await closeDatabases();
        release();
      }
    },
  };
  return context;
}
