import { runDistributedApp } from '@app/platform';
import { RegistryModule } from './registry.module.js';

await runDistributedApp('registry', (config) => RegistryModule.register(config));
