import { type DynamicModule, Module } from '@nestjs/common';
import type { ServiceConfig } from '@app/infra';
import { healthController, InfraModule } from '@app/platform';
import { RegistrySchema1763700000000 } from './migrations/1763700000000-registry-schema.js';

export const REGISTRY_DATABASE = { schema: 'registry', entities: [], migrations: [RegistrySchema1763700000000] };

@Module({})
export class RegistryModule {
  static register(config: ServiceConfig): DynamicModule {
    return {
      module: RegistryModule,
      imports: [InfraModule.forApp({ app: 'registry', config, database: REGISTRY_DATABASE })],
      controllers: [healthController('registry')],
    };
  }
}
