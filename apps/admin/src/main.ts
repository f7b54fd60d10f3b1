import { runDistributedApp } from '@app/platform';
import { AdminModule } from './admin.module.js';

await runDistributedApp('admin', (config) => AdminModule.register(config));
