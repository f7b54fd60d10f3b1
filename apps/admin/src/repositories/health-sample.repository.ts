import { Inject, Injectable } from '@nestjs/common';
import type { HealthSample } from '@app/contracts';
import { DataSource, type Repository } from 'typeorm';
import type { DailyHealthCounts } from '../dtos/health-history.js';
import { HealthSampleEntity } from '../entities/health-sample.entity.js';

/** Every query of admin.health_sample. */
@Injectable()
export class HealthSampleRepository {
  private readonly samples: Repository<HealthSampleEntity>;

  constructor(@Inject(DataSource) dataSource: DataSource) {
    this.samples = dataSource.getRepository(HealthSampleEntity);
  }

  async insert(sample: { ts: Date; status: HealthSample['status'] }): Promise<void> {
    await this.samples.insert({ ts: sample.ts, status: sample.status });
  }

  /** Removes the samples older than `before` (the history never reaches them); how many went. */
  async deleteBefore(before: Date): Promise<number> {
    const result = await this.samples.createQueryBuilder().delete().where('ts < :before', { before }).execute();
    return result.affected ?? 0;
  }

  /** Sample counts per UTC day for ts in [from, to). Days without samples are absent. */
  async dailyCounts(from: Date, to: Date): Promise<DailyHealthCounts[]> {
    const rows = await this.samples
      .createQueryBuilder('s')
      .select(`to_char(s.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD')`, 'day')
      .addSelect('COUNT(*)', 'samples')
      .addSelect(`COUNT(*) FILTER (WHERE s.status = 'ok')`, 'ok')
      .addSelect(`COUNT(*) FILTER (WHERE s.status = 'degraded')`, 'degraded')
      .addSelect(`COUNT(*) FILTER (WHERE s.status = 'down')`, 'down')
      .where('s.ts >= :from AND s.ts < :to', { from, to })
      .groupBy('day')
      .getRawMany<Record<keyof DailyHealthCounts, unknown>>();
    return rows.map((r) => ({
      day: String(r.day),
      samples: Number(r.samples),
      ok: Number(r.ok),
      degraded: Number(r.degraded),
      down: Number(r.down),
    }));
  }
}
