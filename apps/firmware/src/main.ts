// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { prepareServiceRuntime } from '../../../libs/infra/src/runtime/service-runtime.js';

prepareServiceRuntime();
// `--role=update-check`: only the public update check (its own deployment); default: everything.
const { firmwareRoleFromArgs, firmwareServiceName } = await import('./firmware-role.js');
const role = firmwareRoleFromArgs(process.argv.slice(2));
// Tracing first: it patches the database, Redis and S3 clients as they load.
const { startTracingAtEntry } = await import('../../../libs/infra/src/telemetry/telemetry.js');
await startTracingAtEntry(firmwareServiceName(role));
const { runDistributedApp } = await import('@app/platform');
const { FirmwareModule } = await import('./firmware.module.js');
// The update-check role answers from memory: named apart in metrics, ready without the database.
const probing = role === 'update-check' ? ({ source: 'firmware-update-check', readinessNeedsDatabase: false } as const) : {};
await runDistributedApp('firmware', (config) => FirmwareModule.register(config, { role }), probing);
