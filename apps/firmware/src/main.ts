// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { exitUnlessSupportedNode } from '../../../libs/infra/src/runtime/supported-node.js';

exitUnlessSupportedNode();
const { runDistributedApp } = await import('@app/platform');
const { FirmwareModule, firmwareRoleFromArgs } = await import('./firmware.module.js');

// `--role=update-check`: only the public update check (its own deployment); default: everything.
const role = firmwareRoleFromArgs(process.argv.slice(2));
await runDistributedApp('firmware', (config) => FirmwareModule.register(config, { role }));
