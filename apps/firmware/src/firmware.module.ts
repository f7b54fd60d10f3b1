import { type DynamicModule, Module } from '@nestjs/common';
import type { ServiceConfig } from '@app/infra';
import { healthController, InfraModule } from '@app/platform';
import { FirmwareSchema1763700000000 } from './migrations/1763700000000-firmware-schema.js';

export const FIRMWARE_DATABASE = { schema: 'firmware', entities: [], migrations: [FirmwareSchema1763700000000] };

@Module({})
export class FirmwareModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: FirmwareModule,
      imports: [InfraModule.forApp({ app: 'firmware', config, database: FIRMWARE_DATABASE })],
      controllers: [healthController('firmware')],
    };
  }
}
