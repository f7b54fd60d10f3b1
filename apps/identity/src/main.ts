import { runDistributedApp } from '@app/platform';
import { IdentityModule } from './identity.module.js';

await runDistributedApp('identity', (config) => IdentityModule.register(config));
