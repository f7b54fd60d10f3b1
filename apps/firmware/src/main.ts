import { runDistributedApp } from '@app/platform';
import { FirmwareModule } from './firmware.module.js';

await runDistributedApp('firmware', (config) => FirmwareModule.register(config));
