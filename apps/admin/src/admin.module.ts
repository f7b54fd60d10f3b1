import { type DynamicModule, Module } from '@nestjs/common';
import type { AppDatabaseOptions, ServiceConfig } from '@app/infra';
import { healthController, InfraModule } from '@app/platform';
import { AdminController } from './controllers/admin.controller.js';
import { HealthSampleEntity } from './entities/health-sample.entity.js';
import { RequestLogEntity } from './entities/request-log.entity.js';
import { AdminSchema1763700000000 } from './migrations/1763700000000-admin-schema.js';
import { HealthSampleRepository } from './repositories/health-sample.repository.js';
import { RequestLogRepository } from './repositories/request-log.repository.js';
import { Clock } from './services/clock.js';
import { HealthService } from './services/health.service.js';
import { RequestLogService } from './services/request-log.service.js';

export const ADMIN_DATABASE = {
  schema: 'admin',
  entities: [RequestLogEntity, HealthSampleEntity],
  migrations: [AdminSchema1763700000000],
} satisfies AppDatabaseOptions;

/** The app's own providers (infrastructure comes from InfraModule); tests compose them with test adapters. */
export const ADMIN_PROVIDERS = [Clock, RequestLogRepository, HealthSampleRepository, RequestLogService, HealthService];
export const ADMIN_CONTROLLERS = [AdminController];

/** Operations data: request log and health history now; statistics, audit and security events later. */
@Module({})
export class AdminModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: AdminModule,
      imports: [InfraModule.forApp({ app: 'admin', config, database: ADMIN_DATABASE })],
      controllers: [...ADMIN_CONTROLLERS, healthController('admin')],
      providers: ADMIN_PROVIDERS,
    };
  }
}
