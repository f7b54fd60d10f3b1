import type { HealthPart, HealthSample, PartState } from '@app/contracts';
import { BaseRepository, sql } from '@app/infra';

/** Every query of admin.health_sample: the samples the roll-up has not moved yet. */
export class HealthSampleRepository extends BaseRepository {
  async insert(sample: { ts: Date; status: HealthSample['status']; parts: Partial<Record<HealthPart, PartState>> }): Promise<void> {
    await sql(this.manager, `INSERT INTO admin.health_sample (ts, status, parts) VALUES ($1, $2, $3::jsonb)`, [
      sample.ts.toISOString(),
      sample.status,
      JSON.stringify(sample.parts),
    ]);
  }
}
