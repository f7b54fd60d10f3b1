// Entry point: the runtime check runs before anything else is loaded (docs/operations.md, "Runtime").
import { exitUnlessSupportedNode } from '../../../libs/infra/src/runtime/supported-node.js';

exitUnlessSupportedNode();
const { JsonLogger, loadConfig, startTelemetry } = await import('@app/infra');
const { startStandalone } = await import('./standalone.js');

const logger = new JsonLogger('standalone');
try {
  await startTelemetry('firmware-service', loadConfig().otelEnabled);
  const service = await startStandalone();
  const stop = async (signal: string) => {
    logger.info('stopping', { signal });
    await service.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
} catch (err) {
  logger.error(err instanceof Error ? err : new Error(String(err)), 'failed to start');
  process.exit(1);
}
