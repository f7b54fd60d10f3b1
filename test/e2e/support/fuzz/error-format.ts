/**
 * The contract's error format (docs/api.md "Limits and errors"): `application/problem+json`
 * with type, title, status (the HTTP status), detail, instance, request_id and code (whose
 * entry on /docs/errors `type` names); or, for the
 * operations whose errors are declared as text and a client that did not ask for JSON, one
 * `text/plain` line `<status> <reason phrase>: <message>`.
 */

export interface ErrorReply {
  readonly status: number;
  readonly contentType: string | null;
  readonly requestId: string | null;
  readonly body: Buffer;
  /** HEAD: headers only. */
  readonly head: boolean;
}

/** A violation: `kind` groups equal violations, `detail` tells this one. */
export interface Violation {
  readonly kind: string;
  readonly detail: string;
}

const PROBLEM_STRINGS = ['type', 'title', 'detail', 'instance', 'request_id', 'code'] as const;
const TEXT_LINE = /^(\d{3}) [^\n]+: [^\n]*\n$/;

export function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Which forms an error may take: problem+json only, the text line only, or either. */
export type ErrorForm = 'problem' | 'text' | 'either';

const EXPECTED: Record<ErrorForm, string> = {
  problem: 'application/problem+json',
  text: 'text/plain (the text line)',
  either: 'application/problem+json or text/plain',
};

/** The violations of an error reply (status >= 400). */
export function errorFormatViolations(reply: ErrorReply, form: ErrorForm): Violation[] {
  const media = mediaTypeOf(reply.contentType);
  const expected = EXPECTED[form];
  if (media === 'text/plain' && form !== 'problem') return reply.head ? [] : textLineViolations(reply);
  if (media !== 'application/problem+json' || form === 'text') {
    return [
      {
        kind: `error reply is ${media || 'without Content-Type'}, not ${expected}`,
        detail: `Content-Type ${reply.contentType ?? '(none)'}, body ${JSON.stringify(reply.body.toString('utf8').slice(0, 200))}`,
      },
    ];
  }
  return reply.head ? [] : problemViolations(reply);
}

function textLineViolations(reply: ErrorReply): Violation[] {
  const text = reply.body.toString('utf8');
  const line = TEXT_LINE.exec(text);
  if (!line) return [{ kind: 'text error is not one line "<status> <reason>: <message>"', detail: JSON.stringify(text.slice(0, 300)) }];
  if (Number(line[1]) !== reply.status)
    return [{ kind: 'text error names another status', detail: `HTTP ${reply.status}, line ${JSON.stringify(text.slice(0, 200))}` }];
  return [];
}

function problemViolations(reply: ErrorReply): Violation[] {
  let body: unknown;
  try {
    body = JSON.parse(reply.body.toString('utf8'));
  } catch {
    return [{ kind: 'problem+json body is not JSON', detail: JSON.stringify(reply.body.toString('utf8').slice(0, 300)) }];
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [{ kind: 'problem+json body is not an object', detail: JSON.stringify(body) }];
  const problem = body as Record<string, unknown>;
  const missing = PROBLEM_STRINGS.filter((field) => typeof problem[field] !== 'string');
  const violations: Violation[] = [];
  if (missing.length > 0 || typeof problem.status !== 'number') {
    violations.push({
      kind: 'problem+json lacks a field of the contract',
      detail: `missing or not a string: ${[...missing, ...(typeof problem.status === 'number' ? [] : ['status (integer)'])].join(', ')}; body ${JSON.stringify(problem).slice(0, 300)}`,
    });
  }
  if (typeof problem.status === 'number' && problem.status !== reply.status) {
    violations.push({ kind: 'problem+json status differs from the HTTP status', detail: `HTTP ${reply.status}, body status ${problem.status}` });
  }
  if (typeof problem.code === 'string' && typeof problem.type === 'string' && !problem.type.endsWith(`/docs/errors#${problem.code}`)) {
    violations.push({ kind: 'problem+json type is not the entry of its code on /docs/errors', detail: `type ${problem.type}, code ${problem.code}` });
  }
  if (typeof problem.request_id === 'string' && reply.requestId !== null && problem.request_id !== reply.requestId) {
    violations.push({ kind: 'problem+json request_id differs from X-Request-Id', detail: `${problem.request_id} vs ${reply.requestId}` });
  }
  return violations;
}
