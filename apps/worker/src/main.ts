// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { prepareServiceRuntime } from '../../../libs/infra/src/runtime/service-runtime.js';

prepareServiceRuntime();
// Tracing first: it patches the database, Redis and S3 clients as they load.
const { startTracingAtEntry } = await import('../../../libs/infra/src/telemetry/telemetry.js');
await startTracingAtEntry('worker');
const { runDistributedApp } = await import('@app/platform');
const { WorkerModule } = await import('./worker.module.js');
await runDistributedApp('worker', (config) => WorkerModule.register(config));
