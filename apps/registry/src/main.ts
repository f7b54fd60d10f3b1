// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { exitUnlessSupportedNode } from '../../../libs/infra/src/runtime/supported-node.js';

exitUnlessSupportedNode();
const { runDistributedApp } = await import('@app/platform');
const { RegistryModule } = await import('./registry.module.js');
await runDistributedApp('registry', (config) => RegistryModule.register(config));
