import { sql } from '@app/infra';
import type { DataSource } from 'typeorm';

/** A condition of readiness, asked on every /readyz (cheap: a flag, or one short query). */
export type ReadinessCheck = () => boolean | Promise<boolean>;

/** How long the database may take to answer a readiness query before the app counts as not ready. */
const DATABASE_CHECK_MS = 2_000;

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Record<string, boolean>;
}

/**
 * The state behind an app's probes (docs/operations.md "Probes and metrics"): started once
 * its migrations ran and it is subscribed to the bus (`/startupz`, for good); ready while
 * started, not stopping and every check passes (`/readyz`). Which checks an app has is decided
 * where it starts: the bus always, the database unless the app answers without it (the
 * update-check role answers from memory, so a database failover must not make it unready).
 */
export class AppProbes {
  private startedAt: number | null = null;
  private stopping = false;
  private checks: Record<string, ReadinessCheck> = {};

  constructor(readonly name: string) {}

  get started(): boolean {
    return this.startedAt !== null;
  }

  /** Start-up is over: from now on readiness is the checks' verdict. */
  markStarted(checks: Record<string, ReadinessCheck>): void {
    this.checks = checks;
    this.startedAt = Date.now();
  }

  /** A stop began (SIGTERM): not ready any more, so no new work is routed here while it drains. */
  markStopping(): void {
    this.stopping = true;
  }

  async readiness(): Promise<ReadinessReport> {
    const names = Object.keys(this.checks);
    const results = await Promise.all(names.map((name) => Promise.resolve(this.checks[name]()).catch(() => false)));
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i]]));
    return { ready: this.started && !this.stopping && results.every(Boolean), checks };
  }

  async isReady(): Promise<boolean> {
    return (await this.readiness()).ready;
  }
}

/** Whether the database answers `SELECT 1` within two seconds. */
export async function databaseAnswers(dataSource: DataSource): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      sql(dataSource, 'SELECT 1').then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), DATABASE_CHECK_MS);
      }),
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
