import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, type StagedFile, TransportError } from '@app/contracts';
import { JsonLogger, type ServiceConfig } from '@app/infra';
import { SERVICE_CONFIG } from '@app/platform';
import { BodyStager } from '../uploads/body-stager.js';
import { MultipartStager } from '../uploads/multipart-stager.js';
import { asServiceError, type FailureMode, renderError } from './error-renderer.js';
import { closeAfterLingering } from './lingering-close.js';
import { isAddressBlocked } from '../protection/gateway-protection.js';
import type { RequestState } from './request-state.js';

/**
 * A request that failed: uploads nobody received are deleted, internal failures logged, and
 * the error answered in the endpoint's error mode (or the connection ended if an answer had
 * begun, or nothing sent if the client is gone).
 */
@Injectable()
export class RequestFailure {
  private readonly logger = new JsonLogger('gateway');

  constructor(
    private readonly stager: BodyStager,
    private readonly multipart: MultipartStager,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  answer(
    err: unknown,
    req: IncomingMessage,
    res: ServerResponse,
    state: RequestState,
    mode: FailureMode,
    json: boolean,
    path: string,
    staged: StagedFile | undefined,
    stagedParts: Record<string, StagedFile> | undefined,
  ): void {
    const method = req.method ?? 'GET';
    if (TransportError.notReceived(err)) {
      // Nobody received the staged upload: it is still ours to delete.
      if (staged) void this.stager.discard(staged);
      if (stagedParts) for (const part of Object.values(stagedParts)) void this.multipart.discard(part, state);
    }
    if (state.done && !res.headersSent) {
      // The client closed the connection before we answered: no failure of ours, nobody to answer.
      this.logger
        .forRequest(state)
        .debug('client closed the connection before the answer', { method, route: state.route, error: err instanceof Error ? err.message : String(err) });
      return;
    }
    const error = asServiceError(err);
    // A public path naming a customer answers 404 only when there is no such (active) customer: nobody to count the request for.
    if (error.code === ErrorCode.NotFound && state.domain !== null && !state.actor) state.domain = null;
    if (error.code === ErrorCode.Internal)
      this.logger.forRequest(state).error(err instanceof Error ? err : new Error(String(err)), 'request failed', { method, route: state.route });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // An upload still arriving is not read on: the answer closes the connection, after lingering so the client reads it.
    if (!req.complete) closeAfterLingering(req, (name, value) => res.setHeader(name, value));
    renderError(res, error, {
      mode,
      wantsJson: json,
      path,
      requestId: state.requestId,
      baseUrl: this.config.publicUrl,
      head: method === 'HEAD',
      addressBlocked: isAddressBlocked(error),
    });
  }
}
