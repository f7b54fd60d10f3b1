import { assertDistributedConfig, JsonLogger, loadConfig, startTelemetry } from '@app/infra';
import { startGateway } from './start-gateway.js';

const logger = new JsonLogger('gateway');
try {
  const config = loadConfig();
  assertDistributedConfig(config, { nats: true, s3: true, downloadSecret: true });
  await startTelemetry('gateway', config.otelEnabled);
  await startGateway(config);
} catch (err) {
  logger.error(err instanceof Error ? err : new Error(String(err)), 'failed to start');
  process.exit(1);
}
