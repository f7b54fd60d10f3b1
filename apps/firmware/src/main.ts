import { runDistributedApp } from '@app/platform';
import { FirmwareModule, firmwareRoleFromArgs } from './firmware.module.js';

// `--role=update-check`: only the public update check (its own deployment); default: everything.
const role = firmwareRoleFromArgs(process.argv.slice(2));
await runDistributedApp('firmware', (config) => FirmwareModule.register(config, { role }));
