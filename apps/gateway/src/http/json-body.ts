import type { IncomingMessage } from 'node:http';
import { CSRF_FIELD, type EndpointDef, GatewayErrors } from '@app/contracts';
import type { InputValidator } from '../routing/input-validator.js';
import { type ParsedBody, parseBody, readSmallBody } from './http-io.js';
import type { RequestState } from './request-state.js';

/** The limit of a JSON body whose endpoint declares none, and of a console form. */
const DEFAULT_JSON_LIMIT = 64 * 1024;
export const NO_BODY: ParsedBody = { kind: 'absent' };

/** Whether the request carries a small body read whole: a JSON endpoint's, or a console form posted to a body-less endpoint (not GET or HEAD). */
export function hasSmallBody(endpoint: EndpointDef, req: IncomingMessage): boolean {
  return endpoint.body.kind === 'json' || (endpoint.body.kind === 'none' && endpoint.method !== 'GET' && endpoint.method !== 'HEAD' && isForm(req));
}

/** Reads and parses the small body (JSON or urlencoded form) within the endpoint's limit. */
export async function readSmallRequestBody(endpoint: EndpointDef, req: IncomingMessage, state: RequestState): Promise<ParsedBody> {
  const raw = await readSmallBody(req, endpoint.body.kind === 'json' ? (endpoint.body.maxBytes ?? DEFAULT_JSON_LIMIT) : DEFAULT_JSON_LIMIT);
  state.bytesIn = raw.length;
  return parseBody(raw, req.headers['content-type']);
}

/** The validated JSON body of a JSON endpoint (a form's fields without its CSRF token), else undefined. */
export function jsonBodyOf(endpoint: EndpointDef, parsed: ParsedBody, validator: InputValidator): unknown {
  if (endpoint.body.kind !== 'json') return undefined;
  if (parsed.kind === 'absent') {
    if (endpoint.body.required) throw GatewayErrors.json_body_required();
    return undefined;
  }
  return validator.body(endpoint, parsed.kind === 'json' ? parsed.value : withoutCsrf(parsed.fields));
}

function isForm(req: IncomingMessage): boolean {
  return /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '');
}

function withoutCsrf(fields: Record<string, string>): Record<string, string> {
  const { [CSRF_FIELD]: _csrf, ...rest } = fields;
  return rest;
}
