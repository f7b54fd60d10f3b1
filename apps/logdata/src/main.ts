import { runDistributedApp } from '@app/platform';
import { LogdataModule } from './logdata.module.js';

await runDistributedApp('logdata', (config) => LogdataModule.register(config));
