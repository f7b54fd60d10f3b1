import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import {
  CSRF_FIELD,
  CSRF_HEADER,
  type EndpointCall,
  type EndpointDef,
  ENDPOINTS,
  ErrorCode,
  type HttpReply,
  type Principal,
  type RequestContext,
  ServiceError,
  SESSION_COOKIES,
  type StagedFile,
  TransportError,
} from '@app/contracts';
import { JsonLogger, MessageBus, type ServiceConfig, tracer, tracingEnabled } from '@app/infra';
import { SpanKind } from '@opentelemetry/api';
import { SERVICE_CONFIG } from '@app/platform';
import { AccessPolicy, type Access, anonymousAccess } from '../auth/access-policy.js';
import { DownloadServer } from '../downloads/download-server.js';
import { ServiceHealth } from '../health/service-health.js';
import { buildOpenApiDocument } from '../openapi/openapi-document.js';
import { GatewayMetrics } from '../observability/metrics.js';
import { RequestLog } from '../observability/request-log.js';
import { InputValidator } from '../routing/input-validator.js';
import { RouteTable } from '../routing/route-table.js';
import { BodyStager } from '../uploads/body-stager.js';
import { MultipartStager } from '../uploads/multipart-stager.js';
import { EndpointRateLimiter } from '../rate-limit/rate-limiter.js';
import { mergeSetCookie } from '../auth/cookies.js';
import { sendHtml } from '../pages/page-headers.js';
import { PageServer } from '../pages/page-server.js';
import { endAtTurnEnd } from './end-of-turn.js';
import { asServiceError, renderError, wantsJson } from './error-renderer.js';
import { clientIp, parseBody, parseCookies, readSmallBody, sendJson, sendText, serializeCookie } from './http-io.js';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const DEFAULT_JSON_LIMIT = 64 * 1024;
const NO_BODY = { kind: 'absent' } as const;
/** The query of a URL without one (read only). */
const NO_QUERY = new URLSearchParams();
/**
 * The status recorded (request log, metrics; never sent) for a request whose client closed
 * the connection before it was answered, an upload stopped halfway say: nginx's convention.
 */
const CLIENT_CLOSED_REQUEST = 499;

interface RequestState {
  readonly requestId: string;
  /** performance.now() when the request arrived (a double: no BigInt per request). */
  readonly started: number;
  /** The client address, read once. */
  readonly ip: string;
  route: string;
  domain: string | null;
  actor: string | null;
  bytesIn: number;
  /** The request's log entry and metrics are recorded (once, on 'close'). */
  done: boolean;
}

/**
 * Every request goes through here: request id, routing, access (authentication, CSRF,
 * customer, scope), validation, body handling, then the endpoint's target; errors rendered
 * per SPEC "Errors"; one request-log entry and metrics for every request.
 */
@Injectable()
export class RequestPipeline {
  private readonly routes = new RouteTable(ENDPOINTS);
  private readonly validator = new InputValidator(ENDPOINTS);
  private readonly logger = new JsonLogger('gateway');
  private openApiText?: string;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    private readonly bus: MessageBus,
    private readonly access: AccessPolicy,
    private readonly stager: BodyStager,
    private readonly downloads: DownloadServer,
    private readonly health: ServiceHealth,
    private readonly metrics: GatewayMetrics,
    private readonly requestLog: RequestLog,
    private readonly pages: PageServer,
    private readonly multipart: MultipartStager,
    private readonly rateLimiter: EndpointRateLimiter,
  ) {}

  handle(req: IncomingMessage, res: ServerResponse): void {
    const header = req.headers['x-request-id'];
    const requestId = typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : randomUUID();
    const state: RequestState = { requestId, started: performance.now(), ip: clientIp(req), route: '(unmatched)', domain: null, actor: null, bytesIn: 0, done: false };
    res.setHeader('X-Request-Id', requestId);
    // 'close' follows 'finish' on every response, and also ends an aborted one.
    res.on('close', () => this.finish(req, res, state));
    if (!tracingEnabled()) {
      void this.process(req, res, state);
      return;
    }
    // One server span per request; bus messages continue it (trace context in message headers).
    tracer().startActiveSpan(`HTTP ${req.method}`, { kind: SpanKind.SERVER, attributes: { 'http.request_id': requestId } }, (span) => {
      res.once('close', () => {
        span.setAttribute('http.route', state.route);
        span.setAttribute('http.status_code', res.statusCode);
        span.end();
      });
      void this.process(req, res, state);
    });
  }

  private async process(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    const method = req.method ?? 'GET';
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
    const search = queryAt === -1 ? NO_QUERY : new URLSearchParams(rawUrl.slice(queryAt + 1));
    const json = wantsJson(req.headers.accept);
    let endpoint: EndpointDef | undefined;
    let staged: StagedFile | undefined;
    let stagedParts: Record<string, StagedFile> | undefined;
    try {
      const lookup = this.routes.lookup(method, path);
      switch (lookup.kind) {
        case 'not-found':
          throw ServiceError.notFound(`no endpoint ${method} ${path}`);
        case 'bad-path':
          throw ServiceError.badRequest('path is not valid percent-encoding');
        case 'method-not-allowed':
          throw new ServiceError(ErrorCode.MethodNotAllowed, `${method} is not allowed here`, { Allow: lookup.allowed.join(', ') });
        case 'found':
          break;
      }
      endpoint = lookup.match.endpoint;
      state.route = endpoint.path;
      if (endpoint.rateLimit) this.rateLimiter.check(endpoint.rateLimit, state.ip);
      const cookies = parseCookies(req.headers.cookie);
      const smallBody = endpoint.body.kind === 'json' || (endpoint.body.kind === 'none' && isForm(req)) ? await readSmallBody(req, endpoint.body.kind === 'json' ? (endpoint.body.maxBytes ?? DEFAULT_JSON_LIMIT) : DEFAULT_JSON_LIMIT) : null;
      if (smallBody) state.bytesIn = smallBody.length;
      const parsedBody = smallBody ? parseBody(smallBody, req.headers['content-type']) : NO_BODY;
      const csrfToken = headerValue(req, CSRF_HEADER) ?? search.get(CSRF_FIELD) ?? (parsedBody.kind === 'form' ? parsedBody.fields[CSRF_FIELD] : undefined);
      const authorization = headerValue(req, 'authorization');
      const checked = anonymousAccess(endpoint.auth, { authorization, cookies }) ?? this.access.check({
        auth: endpoint.auth,
        method,
        credentials: { authorization, cookies, client: { ip: state.ip, userAgent: (headerValue(req, 'user-agent') ?? '').slice(0, 512), requestId: state.requestId } },
        onRenewed: (renewed) => res.setHeader('Set-Cookie', renewed.map(serializeCookie)),
        customerParam: search.get('customer') ?? undefined,
        csrfToken,
        onAuthenticated: (principal) => {
          state.domain = principal.homeCustomer.domain;
          state.actor = actorOf(principal);
        },
      });
      const access = checked instanceof Promise ? await checked : checked;
      state.domain = access.customer?.domain ?? access.principal?.homeCustomer.domain ?? null;
      state.actor = actorOf(access.principal);
      const params = this.validator.params(endpoint, lookup.match.params);
      const query = this.validator.query(endpoint, search);

      if (endpoint.target.kind === 'gateway') {
        await this.serveFromGateway(endpoint.target.handler, req, res, params, method === 'HEAD');
        return;
      }

      let body: unknown;
      if (endpoint.body.kind === 'json') {
        if (parsedBody.kind === 'absent') {
          if (endpoint.body.required) throw ServiceError.badRequest('a JSON body is required');
        } else {
          const value = parsedBody.kind === 'json' ? parsedBody.value : withoutCsrf(parsedBody.fields);
          body = this.validator.body(endpoint, value);
        }
      }
      const contentType = (headerValue(req, 'content-type') ?? 'application/octet-stream').slice(0, 255);
      if (endpoint.body.kind === 'stream') {
        if (!access.customer) throw new Error(`${endpoint.operationId}: stream bodies need a tenant endpoint`);
        const accepted = endpoint.body.contentTypes;
        if (accepted && !accepted.includes(contentType.split(';')[0]!.trim().toLowerCase())) {
          throw new ServiceError(ErrorCode.UnsupportedMediaType, `body must be ${accepted.join(' or ')}`);
        }
        staged = await this.stager.stage(req, endpoint.body.maxBytes(access.customer), contentType);
        state.bytesIn = staged.sizeBytes;
      }
      if (endpoint.body.kind === 'multipart') {
        if (!access.customer) throw new Error(`${endpoint.operationId}: multipart bodies need a tenant endpoint`);
        const parts = await this.multipart.stage(req, endpoint.body, { isSandbox: access.customer.isSandbox, firmwareMaxBytes: this.config.firmwareMaxBytes }, state);
        stagedParts = parts.files;
        state.bytesIn = parts.bytesIn;
      }
      const call: EndpointCall<unknown, unknown, unknown> = {
        ctx: this.context(req, state, access),
        params,
        query,
        body,
        ...(staged ? { file: staged, contentType } : {}),
        ...(stagedParts ? { files: stagedParts } : {}),
        ...(endpoint.forwardHeaders ? { headers: pickHeaders(req, endpoint.forwardHeaders) } : {}),
        ...(endpoint.auth.kind === 'refresh' ? { refresh: { token: cookies[SESSION_COOKIES.refresh] ?? null, csrfToken: csrfToken ?? null } } : {}),
      };
      const message = endpoint.target.message;
      const result = await this.bus.send(message, call);
      staged = undefined; // the app owns it now
      stagedParts = undefined;
      this.writeReply(res, endpoint.target.reply(result, { json, baseUrl: this.config.publicUrl, path }), method === 'HEAD');
    } catch (err) {
      if (TransportError.notReceived(err)) {
        // Nobody received the staged upload: it is still ours to delete.
        if (staged) void this.stager.discard(staged);
        if (stagedParts) for (const part of Object.values(stagedParts)) void this.multipart.discard(part, state);
      }
      if (state.done && !res.headersSent) {
        // The client closed the connection before we answered: no failure of ours, nobody to answer.
        this.logger.forRequest(state).debug('client closed the connection before the answer', { method, route: state.route, error: err instanceof Error ? err.message : String(err) });
        return;
      }
      const error = asServiceError(err);
      if (error.code === ErrorCode.Internal) this.logger.forRequest(state).error(err instanceof Error ? err : new Error(String(err)), 'request failed', { method, route: state.route });
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (!req.complete) res.setHeader('Connection', 'close'); // do not read an unwanted upload
      renderError(res, error, { mode: endpoint?.errorMode ?? 'json', wantsJson: json, path, requestId: state.requestId, head: method === 'HEAD' });
    }
  }

  private context(req: IncomingMessage, state: RequestState, access: Access): RequestContext {
    const actor = state.actor ?? 'anonymous';
    return {
      requestId: state.requestId,
      principal: access.principal,
      customer: access.customer,
      actor,
      auditActor: access.actingAsAdmin ? `admin:${actor}` : actor,
      ip: state.ip,
      userAgent: (headerValue(req, 'user-agent') ?? '').slice(0, 512),
      baseUrl: this.config.publicUrl,
    };
  }

  private async serveFromGateway(handler: Extract<EndpointDef['target'], { kind: 'gateway' }>['handler'], req: IncomingMessage, res: ServerResponse, params: Record<string, unknown>, head: boolean): Promise<void> {
    switch (handler) {
      case 'healthz':
        return sendText(res, 200, 'ok\n', 'text/plain; charset=utf-8', head);
      case 'readyz': {
        const readiness = await this.health.readiness();
        return sendJson(res, readiness.ready ? 200 : 503, readiness, head);
      }
      case 'status': {
        const status = await this.health.status();
        return sendJson(res, status.status === 'down' ? 503 : 200, status, head);
      }
      case 'metrics':
        return sendText(res, 200, this.metrics.render(), 'text/plain; version=0.0.4; charset=utf-8', head);
      case 'openapi':
        this.openApiText ??= JSON.stringify(buildOpenApiDocument(ENDPOINTS, this.config.publicUrl));
        return sendText(res, 200, this.openApiText, 'application/json', head);
      case 'download':
        return this.downloads.serve(req, res, String(params.token));
      case 'page':
        return this.pages.serve(req, res, params, head);
    }
  }

  private writeReply(res: ServerResponse, reply: HttpReply, head: boolean): void {
    if ('cookies' in reply && reply.cookies?.length) res.setHeader('Set-Cookie', mergeSetCookie(res.getHeader('Set-Cookie'), reply.cookies.map(serializeCookie)));
    if ('headers' in reply && reply.headers) {
      const headers = reply.headers;
      for (const name in headers) res.setHeader(name, headers[name]!);
    }
    switch (reply.kind) {
      case 'json':
        return sendJson(res, reply.status, reply.body, head);
      case 'text':
        return sendText(res, reply.status, reply.body, reply.contentType, head);
      case 'html':
        return sendHtml(res, reply.status, reply.body, head, reply.headers);
      case 'empty':
        res.statusCode = reply.status;
        endAtTurnEnd(res);
        return;
      case 'redirect':
        res.statusCode = reply.status;
        res.setHeader('Location', reply.location);
        endAtTurnEnd(res);
        return;
      case 'download-link':
        res.statusCode = 302;
        res.setHeader('Location', this.downloads.linkFor(reply.file));
        res.setHeader('Cache-Control', 'no-store');
        endAtTurnEnd(res);
        return;
      case 'not-modified':
        res.statusCode = 304;
        endAtTurnEnd(res);
        return;
      case 'file-head':
        res.statusCode = 200;
        res.setHeader('Content-Length', reply.file.sizeBytes);
        res.setHeader('Content-Type', reply.file.contentType);
        res.setHeader('ETag', `"${reply.file.sha256}"`);
        res.setHeader('Last-Modified', new Date(reply.file.lastModified).toUTCString());
        endAtTurnEnd(res);
        return;
    }
  }

  private finish(req: IncomingMessage, res: ServerResponse, state: RequestState): void {
    if (state.done) return;
    state.done = true;
    const seconds = (performance.now() - state.started) / 1000;
    const answered = res.headersSent;
    const status = answered ? res.statusCode : CLIENT_CLOSED_REQUEST;
    const bytesOut = answered ? Number(res.getHeader('Content-Length') ?? 0) || 0 : 0;
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    this.metrics.observe(req.method ?? 'GET', state.route, status, seconds, state.bytesIn, bytesOut);
    this.requestLog.record({
      ts: isoNow(),
      domain: state.domain,
      actor: state.actor,
      method: req.method ?? 'GET',
      route: state.route,
      path: (queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt)).slice(0, 2048),
      status,
      ip: state.ip,
      user_agent: (headerValue(req, 'user-agent') ?? '').slice(0, 512),
      bytes_in: state.bytesIn,
      bytes_out: bytesOut,
      duration_ms: Math.round(seconds * 1000),
      request_id: state.requestId,
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

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function pickHeaders(req: IncomingMessage, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headerValue(req, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function isForm(req: IncomingMessage): boolean {
  return /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '');
}

function withoutCsrf(fields: Record<string, string>): Record<string, string> {
  const { [CSRF_FIELD]: _csrf, ...rest } = fields;
  return rest;
}

function actorOf(principal: Principal | null): string | null {
  if (!principal) return null;
  return principal.kind === 'token' ? `token:${principal.credentialId}` : `user:${principal.userId}`;
}
