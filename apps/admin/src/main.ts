// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { exitUnlessSupportedNode } from '../../../libs/infra/src/runtime/supported-node.js';

exitUnlessSupportedNode();
const { runDistributedApp } = await import('@app/platform');
const { AdminModule } = await import('./admin.module.js');
await runDistributedApp('admin', (config) => AdminModule.register(config));
