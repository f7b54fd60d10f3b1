import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { CommonErrors } from '@app/contracts';
import { type JsonLogger, METRICS_CONTENT_TYPE, MetricsToken, processMetrics } from '@app/infra';
import type { AppProbes } from './app-probes.js';

/** The default HEALTH_PORT of a backend app (the OpenTelemetry Prometheus exporter's usual port). */
export const DEFAULT_HEALTH_PORT = 9464;
/** A probe or a scrape gets this long; requests are small and have no body. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * A backend app's own small HTTP listener on HEALTH_PORT, for the orchestrator and Prometheus
 * only (no API is served here): `/livez` (the process answers), `/startupz` (migrated and
 * subscribed), `/readyz` (AppProbes) and `/metrics` (the Prometheus text, with METRICS_TOKEN
 * only, compared in constant time; without a token set it answers 401). GET and HEAD only.
 * A port that cannot be bound is logged and the app runs on without the listener (several apps
 * started on one host share the default port): the probes then fail, which says so.
 */
export async function startHealthListener(port: number, probes: AppProbes, metricsToken: string | null, logger: JsonLogger): Promise<Server | null> {
  const token = new MetricsToken(metricsToken);
  const server = createServer((req, res) => {
    answer(req, res, probes, token).catch((err: unknown) => {
      logger.warn('health listener failed to answer', { path: req.url, error: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    });
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve) => {
    server.once('error', (err) => {
      logger.warn('health listener not started', { port, error: err.message });
      resolve(null);
    });
    server.listen(port, () => {
      server.removeAllListeners('error');
      server.on('error', (err) => logger.warn('health listener error', { error: err.message }));
      server.unref();
      logger.info('health listener', { port: (server.address() as { port: number }).port });
      resolve(server);
    });
  });
}

async function answer(req: IncomingMessage, res: ServerResponse, probes: AppProbes, token: MetricsToken): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', req.method === 'HEAD');
  }
  const head = req.method === 'HEAD';
  const path = (req.url ?? '/').split('?')[0];
  switch (path) {
    case '/livez':
      return send(res, 200, 'text/plain; charset=utf-8', 'ok\n', head);
    case '/startupz':
      return probes.started ? send(res, 200, 'text/plain; charset=utf-8', 'started\n', head) : send(res, 503, 'text/plain; charset=utf-8', 'starting\n', head);
    case '/readyz': {
      const report = await probes.readiness();
      return send(res, report.ready ? 200 : 503, 'application/json', JSON.stringify({ app: probes.name, ...report }), head);
    }
    case '/metrics': {
      if (!token.matches(MetricsToken.bearerOf(req.headers.authorization))) {
        const refusal = CommonErrors.metrics_unauthenticated();
        for (const [name, value] of Object.entries(refusal.headers ?? {})) res.setHeader(name, value);
        return send(res, refusal.status, 'text/plain; charset=utf-8', `${refusal.message}\n`, head);
      }
      return send(res, 200, METRICS_CONTENT_TYPE, await processMetrics.render(), head);
    }
    default:
      return send(res, 404, 'text/plain; charset=utf-8', 'not found: /livez, /readyz, /startupz, /metrics\n', head);
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string, head = false): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(head ? undefined : body);
}
