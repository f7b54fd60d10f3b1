import { expect } from '@jest/globals';
import { type HttpReply, PROBLEM_TYPE } from './http.js';

/** What a problem must say besides its status; more members (the code, ...) go here as tests need them. */
export interface ProblemExpectation {
  /** The whole detail, or a pattern it matches. */
  readonly detail?: string | RegExp;
  /** The error code (problem+json `code`; `type` is then its entry on /docs/errors). */
  readonly code?: string;
}

/**
 * A problem+json answer (docs/api.md "Limits and errors"): the status (the reply in the failure
 * message), the media type (exactly, no parameters), `type`, `status` and the `request_id` of the X-Request-Id header,
 * and `detail` when given (as the third argument, or in a ProblemExpectation).
 */
export function expectProblem(reply: HttpReply, status: number, expected?: string | RegExp | ProblemExpectation): void {
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.describe()}`);
  expect(reply.contentType).toBe('application/problem+json');
  const body = reply.json<{ detail: unknown }>();
  expect(body).toMatchObject({ type: expect.stringMatching(PROBLEM_TYPE), status, request_id: reply.header('x-request-id') });
  const { detail, code } = typeof expected === 'string' || expected instanceof RegExp ? { detail: expected } : (expected ?? {});
  if (code !== undefined) expect(body).toMatchObject({ code, type: expect.stringMatching(new RegExp(`/docs/errors#${code}$`)) });
  if (typeof detail === 'string') expect(body.detail).toBe(detail);
  else if (detail) expect(body.detail).toMatch(detail);
}
