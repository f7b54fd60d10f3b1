import type { DataSource } from 'typeorm';
import { ServiceMetrics } from '../telemetry/metric-names.js';
import { processMetrics } from '../telemetry/metrics.js';

/** What pg's Pool tells about itself (TypeORM's postgres driver keeps it as `master`). */
interface PgPoolFigures {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  readonly ended?: boolean;
}

/**
 * fds_db_pool_connections{app,state} of an app's PostgreSQL pool, read at scrape time:
 * `open` connections, of which `idle`; `waiting`: queries waiting for a connection (the pool is
 * exhausted); `max`: DATABASE_POOL_SIZE. The embedded database has no pool: nothing is reported.
 */
export function measurePool(app: string, dataSource: DataSource, max: number): void {
  const pool = (dataSource.driver as unknown as { master?: PgPoolFigures }).master;
  if (!pool || typeof pool.totalCount !== 'number') return;
  processMetrics.collected(ServiceMetrics.dbPoolConnections).collectMany(`pool:${app}`, () =>
    dataSource.isInitialized && !pool.ended
      ? [
          [[app, 'open'], pool.totalCount],
          [[app, 'idle'], pool.idleCount],
          [[app, 'waiting'], pool.waitingCount],
          [[app, 'max'], max],
        ]
      : [],
  );
}
