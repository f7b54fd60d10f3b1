import type { Contract } from '../contract.js';
import { type ErrorForm, errorFormatViolations, type Violation } from './error-format.js';
import type { OpenApiRouter } from './openapi-model.js';
import type { Outcome } from './raw-http.js';
import { asksForJson, type FuzzRequest } from './request-arbitraries.js';

/**
 * What must hold for every reply, whatever was sent: an answer within the time limit, no 5xx,
 * a status the document declares for the operations the path can reach (405 for a method the
 * path lacks, 404 for a path that matches nothing), errors in the contract's format, and JSON
 * success bodies that validate against their declared schema.
 */

/** Replies without X-Request-Id never reached the service's pipeline: Node's HTTP layer answered. */
export const HTTP_LAYER = '(Node HTTP layer, before routing)';

export interface Judgement {
  /** The operation the failure is filed under. */
  readonly operation: string;
  readonly violations: readonly Violation[];
}

export class ReplyOracle {
  constructor(
    private readonly router: OpenApiRouter,
    private readonly contract: Contract,
    private readonly timeoutMs: number,
  ) {}

  judge(request: FuzzRequest, outcome: Outcome): Judgement {
    if (outcome.kind === 'hang') return { operation: request.operation, violations: [{ kind: `hang: no answer within ${this.timeoutMs} ms`, detail: '' }] };
    if (outcome.kind === 'broken') {
      const sent = request.body ? `; the request body was ${request.body.length} bytes` : '';
      return {
        operation: request.operation,
        violations: [{ kind: `no reply: ${outcome.error.replace(/\d+/g, 'N').split(':')[0]}`, detail: outcome.error + sent }],
      };
    }
    const reply = outcome.reply;
    const requestId = headerOf(reply.headers['x-request-id']);
    const contentType = headerOf(reply.headers['content-type']);
    if (isParserRefusal(reply.status, contentType, reply.body, request.method === 'HEAD')) {
      // Answered before routing, so in the problem format whatever the path (docs/api.md "Limits and errors").
      const violations = errorFormatViolations({ status: reply.status, contentType, requestId, body: reply.body, head: request.method === 'HEAD' }, 'problem');
      return { operation: violations.length ? HTTP_LAYER : request.operation, violations };
    }
    const operation = requestId === null ? HTTP_LAYER : request.operation;
    const expectation = this.router.expect(request.method, request.target);
    const violations: Violation[] = [];
    const declared = [...expectation.statuses].sort().join(', ');
    if (reply.status >= 500) violations.push({ kind: `5xx: ${reply.status}`, detail: `declared: ${declared}` });
    else if (!expectation.statuses.has(reply.status)) violations.push({ kind: `undeclared status ${reply.status}`, detail: `declared: ${declared}` });
    const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
    const ownMediaType = mediaType !== '' && mediaType !== 'application/problem+json' && mediaType !== 'text/plain';
    if (reply.status >= 400 && ownMediaType && expectation.mediaTypes(reply.status).has(mediaType)) {
      // An error with a body of its own the operation declares (an HTML page): not in the problem or text-line form.
    } else if (reply.status >= 400) {
      const form: ErrorForm = asksForJson(request) || expectation.textErrors === 'none' ? 'problem' : expectation.textErrors === 'all' ? 'text' : 'either';
      violations.push(...errorFormatViolations({ status: reply.status, contentType, requestId, body: reply.body, head: request.method === 'HEAD' }, form));
    } else if (expectation.statuses.has(reply.status)) {
      const queryAt = request.target.indexOf('?');
      try {
        this.contract.check(
          { method: request.method, url: request.target, status: reply.status, contentType, body: reply.body },
          queryAt === -1 ? request.target : request.target.slice(0, queryAt),
        );
      } catch (err) {
        const message = (err as Error).message;
        const kind = message.includes('does not declare')
          ? `reply ${reply.status} in a media type the operation does not declare`
          : `reply ${reply.status} breaks its declared schema`;
        violations.push({ kind, detail: message.slice(0, 600) });
      }
    }
    if (operation === HTTP_LAYER && violations.length > 0) {
      // One entry per cause: the parser's answers look alike whichever operation was aimed at.
      return {
        operation,
        violations: [
          {
            kind: `${reply.status} ${contentType ?? 'without Content-Type'} for ${httpLayerCause(request)}`,
            detail: violations.map((v) => `${v.kind} (${v.detail})`).join('; '),
          },
        ],
      };
    }
    return { operation, violations };
  }
}

/**
 * Requests the HTTP parser refused are answered before routing, with the problem format's
 * `instance` empty (there is no path to name): 400, 408, 413 (chunk extensions) or 431. The
 * answer to a HEAD carries no body: any of those statuses in problem+json is taken as one.
 */
function isParserRefusal(status: number, contentType: string | null, body: Buffer, head: boolean): boolean {
  if (![400, 408, 413, 431].includes(status) || !contentType?.startsWith('application/problem+json')) return false;
  if (head) return body.length === 0; // the answer to a HEAD has no body to tell
  if (body.length === 0) return false;
  try {
    return (JSON.parse(body.toString('utf8')) as { instance?: unknown }).instance === '';
  } catch {
    return false;
  }
}

/** Node's HTTP parser answers by itself for a URL byte it refuses or a request head over its limit. */
function httpLayerCause(request: FuzzRequest): string {
  if (/[^\x21-\x7e]/.test(request.target)) return 'a URL with a byte outside printable ASCII';
  const head = request.target.length + Object.entries(request.headers).reduce((n, [name, value]) => n + name.length + value.length + 4, 0);
  if (head > 16_000) return 'a request head of about 16 KiB or more';
  return 'another request the parser refused';
}

function headerOf(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
