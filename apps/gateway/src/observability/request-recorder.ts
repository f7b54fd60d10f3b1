import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { pathOf, userAgentOf } from '../http/request-headers.js';
import type { RequestState } from '../http/request-state.js';
import { KnownCustomerDomains } from './known-customer-domains.js';
import { GatewayMetrics } from './metrics.js';
import { RequestLog } from './request-log.js';

/**
 * The status recorded (request log, metrics; never sent) for a request whose client closed
 * the connection before it was answered, an upload stopped halfway say: nginx's convention.
 */
const CLIENT_CLOSED_REQUEST = 499;

/** Records every request once, when its response closes: one request-log entry and its metrics. */
@Injectable()
export class RequestRecorder {
  private readonly knownDomains = new KnownCustomerDomains();

  constructor(
    private readonly metrics: GatewayMetrics,
    private readonly requestLog: RequestLog,
  ) {}

  finish(req: IncomingMessage, res: ServerResponse, state: RequestState): void {
    if (state.done) return;
    state.done = true;
    const seconds = (performance.now() - state.started) / 1000;
    const answered = res.headersSent;
    const status = answered ? res.statusCode : CLIENT_CLOSED_REQUEST;
    const bytesOut = answered ? Number(res.getHeader('Content-Length') ?? 0) || 0 : 0;
    this.metrics.observe(req.method ?? 'GET', state.route, status, seconds, state.bytesIn, bytesOut);
    const ts = isoNow();
    const domain = state.domainFromPath && state.domain !== null ? this.knownDomains.countedDomain(state.domain, status, isoMillis) : state.domain;
    this.requestLog.record({
      ts,
      domain,
      actor: state.actor,
      method: req.method ?? 'GET',
      route: state.route,
      path: pathOf(req.url ?? '/').slice(0, 2048),
      status,
      ip: state.ip,
      user_agent: userAgentOf(req),
      bytes_in: state.bytesIn,
      bytes_out: bytesOut,
      duration_ms: Math.round(seconds * 1000),
      request_id: state.requestId,
      refusal: state.refusal,
    });
  }
}

let isoMillis = 0;
let isoText = '';
/** new Date().toISOString(), formatted once per millisecond (every request-log entry carries one). */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoMillis) {
    isoMillis = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}
