import { Inject, Injectable } from '@nestjs/common';
import type { HealthPart, HealthSample, PartState } from '@app/contracts';
import { DataSource, type Repository } from 'typeorm';
import { HealthSampleEntity } from '../entities/health-sample.entity.js';

/** Every query of admin.health_sample: the samples the roll-up has not moved yet. */
@Injectable()
export class HealthSampleRepository {
  private readonly samples: Repository<HealthSampleEntity>;

  constructor(@Inject(DataSource) dataSource: DataSource) {
    this.samples = dataSource.getRepository(HealthSampleEntity);
  }

  async insert(sample: { ts: Date; status: HealthSample['status']; parts: Partial<Record<HealthPart, PartState>> }): Promise<void> {
    await this.samples.insert({ ts: sample.ts, status: sample.status, parts: sample.parts });
  }
}
