import { runDistributedApp } from '@app/platform';
import { WorkerModule } from './worker.module.js';

await runDistributedApp('worker', (config) => WorkerModule.register(config));
