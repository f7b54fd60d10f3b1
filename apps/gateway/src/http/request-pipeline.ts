import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { type EndpointDef, ENDPOINTS, GatewayErrors, type StagedFile } from '@app/contracts';
import { MessageBus, type ServiceConfig, tracer, tracingEnabled } from '@app/infra';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { SERVICE_CONFIG } from '@app/platform';
import { csrfTokenOf, publicPathDomain, recordCaller, RequestAccess } from '../auth/request-access.js';
import { RequestRecorder } from '../observability/request-recorder.js';
import { GatewayProtection } from '../protection/gateway-protection.js';
import { EndpointRateLimiter } from '../rate-limit/rate-limiter.js';
import { LoadGauge } from '../rate-limit/load-gauge.js';
import { InputValidator } from '../routing/input-validator.js';
import { resolveRoute, RouteRefusal } from '../routing/resolve-route.js';
import { RouteTable } from '../routing/route-table.js';
import { BodyStager } from '../uploads/body-stager.js';
import { stageMultipartUpload } from '../uploads/multipart-upload.js';
import { MultipartStager } from '../uploads/multipart-stager.js';
import { stageRawUpload } from '../uploads/raw-upload.js';
import { type ClientAddressOf, clientAddressResolver } from './client-address.js';
import { CorsPolicy } from './cors.js';
import { endpointCall, requestContext } from './endpoint-call.js';
import { type FailureMode, pageWanted, wantsJson } from './error-renderer.js';
import { GatewayEndpoints } from './gateway-endpoints.js';
import { parseCookies } from './http-io.js';
import { hasSmallBody, jsonBodyOf, NO_BODY, readSmallRequestBody } from './json-body.js';
import { ReplyWriter } from './reply-writer.js';
import { RequestFailure } from './request-failure.js';
import { headerValue } from './request-headers.js';
import { newRequestState, type RequestState, UNMATCHED_ROUTE } from './request-state.js';

/** The query of a URL without one (read only). */
const NO_QUERY = new URLSearchParams();

/**
 * Every request goes through here, in this order: request id and client address, OPTIONS
 * (CORS preflights, cors.ts), route, IP block and maintenance mode (GatewayProtection), rate
 * limit, small body, access (authentication, CSRF, customer, scope), CORS headers when an
 * Origin is sent, parameters, then either the gateway's own
 * handler or the body (validated JSON, staged upload) sent to the endpoint's app over the bus
 * and its reply written. A failure is answered in the endpoint's error mode (docs/api.md);
 * every request gets one request-log entry and its metrics.
 *
 * The update check is the hottest path: a public GET without credentials awaits nothing but
 * the bus, and allocates no callbacks or access request.
 */
@Injectable()
export class RequestPipeline {
  private readonly routes = new RouteTable(ENDPOINTS);
  private readonly validator = new InputValidator(ENDPOINTS);
  private readonly clientAddress: ClientAddressOf;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    private readonly bus: MessageBus,
    private readonly access: RequestAccess,
    private readonly stager: BodyStager,
    private readonly multipart: MultipartStager,
    private readonly rateLimiter: EndpointRateLimiter,
    private readonly gatewayEndpoints: GatewayEndpoints,
    private readonly replies: ReplyWriter,
    private readonly failures: RequestFailure,
    private readonly recorder: RequestRecorder,
    private readonly protection: GatewayProtection,
    private readonly cors: CorsPolicy,
    private readonly load: LoadGauge,
  ) {
    this.clientAddress = clientAddressResolver(config.trustedProxies);
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const state = newRequestState(req, this.clientAddress);
    res.setHeader('X-Request-Id', state.requestId);
    // 'close' follows 'finish' on every response, and also ends an aborted one.
    res.on('close', () => this.recorder.finish(req, res, state));
    if (!tracingEnabled()) {
      void this.process(req, res, state);
      return;
    }
    // One server span per request, named and described by OpenTelemetry's HTTP semantic
    // conventions (docs/operations.md "Traces"); bus messages and queued jobs continue it.
    const method = req.method ?? 'GET';
    tracer().startActiveSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'http.request_id': state.requestId } }, (span) => {
      res.once('close', () => {
        // The route is known once resolved; a request no route takes keeps the bare method.
        if (state.route !== UNMATCHED_ROUTE) {
          span.updateName(`${method} ${state.route}`);
          span.setAttribute('http.route', state.route);
        }
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
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
    const head = method === 'HEAD';
    let endpoint: EndpointDef | undefined;
    let staged: StagedFile | undefined;
    let stagedParts: Record<string, StagedFile> | undefined;
    try {
      if (method === 'OPTIONS') {
        this.protection.checkAddress(state.ip); // a blocked address gets no preflight either
        if (await this.cors.answerOptions(req, res, this.routes, path)) return;
      }
      const match = resolveRoute(this.routes, method, path);
      endpoint = match.endpoint;
      state.route = endpoint.path;
      state.domain = publicPathDomain(endpoint, match.params);
      state.domainFromPath = state.domain !== null;
      this.protection.check(endpoint, method, state.ip);
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) throw GatewayErrors.host_header_missing();
      if (endpoint.rateLimit) this.rateLimiter.check(endpoint.rateLimit, state.ip);

      const cookies = parseCookies(req.headers.cookie);
      const smallBody = hasSmallBody(endpoint, req) ? await readSmallRequestBody(endpoint, req, state) : NO_BODY;
      const csrfToken = csrfTokenOf(req, search, smallBody);
      const checked = this.access.decide(endpoint, method, req, res, state, cookies, csrfToken, search);
      const access = checked instanceof Promise ? await checked : checked;
      recordCaller(state, access);
      const origin = req.headers.origin;
      if (origin !== undefined) await this.cors.allowResponse(res, origin, endpoint, match.params, access);
      const params = this.validator.params(endpoint, match.params);
      const query = this.validator.query(endpoint, search);

      if (endpoint.target.kind === 'gateway') {
        await this.gatewayEndpoints.serve(endpoint.target.handler, req, res, params, head, state.ip);
        return;
      }

      const body = jsonBodyOf(endpoint, smallBody, this.validator);
      const contentType = (headerValue(req, 'content-type') ?? 'application/octet-stream').slice(0, 255);
      if (endpoint.body.kind === 'stream') staged = await stageRawUpload(this.stager, endpoint, req, access.customer, contentType, state);
      if (endpoint.body.kind === 'multipart')
        stagedParts = await stageMultipartUpload(this.multipart, endpoint, req, access.customer, this.config.firmwareMaxBytes, state);

      const ctx = requestContext(req, state, access, this.config.publicUrl);
      let result: unknown;
      this.load.enter();
      try {
        result = await this.bus.send(
          endpoint.target.message,
          endpointCall(endpoint, req, ctx, params, query, body, staged, contentType, stagedParts, cookies, csrfToken),
        );
      } finally {
        this.load.leave();
      }
      staged = undefined; // the app owns it now
      stagedParts = undefined;
      // A change of maintenance or the IP blocks is in force here before its answer is written.
      if (endpoint.target.protection) this.protection.apply(endpoint.target.protection(result));
      this.replies.write(res, endpoint.target.reply(result, { json, baseUrl: this.config.publicUrl, path, pollStretch: this.load.pollStretch() }), head);
    } catch (caught) {
      // A blocked address gets 403 (problem+json) on paths no endpoint takes too.
      const err = endpoint === undefined ? this.protection.refusalFor(caught, state.ip) : caught;
      const errorMode: FailureMode =
        endpoint === undefined
          ? err instanceof RouteRefusal
            ? err.errorMode
            : 'json'
          : pageWanted(endpoint, req.headers.accept)
            ? 'page'
            : endpoint.errorMode;
      this.failures.answer(err, req, res, state, errorMode, json, path, staged, stagedParts);
    }
  }
}
