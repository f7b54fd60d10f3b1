import type { IncomingMessage, ServerResponse } from 'node:http';
import { CommonErrors, GatewayErrors, type SetCookie } from '@app/contracts';
import { endAtTurnEnd } from './end-of-turn.js';

/** The cookies of a request without a Cookie header (shared, so frozen). */
const NO_COOKIES: Record<string, string> = Object.freeze({});

export function parseCookies(header: string | undefined): Record<string, string> {
  if (!header) return NO_COOKIES;
  const cookies: Record<string, string> = {};
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!(name in cookies)) cookies[name] = part.slice(eq + 1).trim();
  }
  return cookies;
}

/** Every session cookie is Path=/, HttpOnly, Secure, SameSite=Strict, without Domain (docs/api.md "Sessions and CSRF"). */
export function serializeCookie(cookie: SetCookie): string {
  const parts = [`${cookie.name}=${cookie.value}`, 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Strict'];
  if (cookie.maxAge !== undefined) parts.push(`Max-Age=${cookie.maxAge}`);
  return parts.join('; ');
}

/**
 * Reads a small body whole, refusing more than `maxBytes` (413) without buffering the excess.
 * The request is paused, never destroyed, on refusal: the answer's lingering close reads the rest.
 */
export function readSmallBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(CommonErrors.body_too_large({ maxBytes }));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      settle();
      req.pause();
      reject(CommonErrors.body_too_large({ maxBytes }));
    };
    const onEnd = (): void => {
      settle();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error): void => {
      settle();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

export type ParsedBody =
  { readonly kind: 'absent' } | { readonly kind: 'json'; readonly value: unknown } | { readonly kind: 'form'; readonly fields: Record<string, string> };

/** A JSON or urlencoded-form body (forms carry the `csrf` field of console pages). */
export function parseBody(raw: Buffer, contentType: string | undefined): ParsedBody {
  if (raw.length === 0) return { kind: 'absent' };
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    return { kind: 'form', fields: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))) };
  }
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw GatewayErrors.unsupported_media_type({ accepted: 'application/json' });
  }
  try {
    return { kind: 'json', value: JSON.parse(raw.toString('utf8')) };
  } catch {
    throw GatewayErrors.json_body_invalid();
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, head = false, contentType = 'application/json'): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  endAtTurnEnd(res, head ? undefined : text);
}

export function sendText(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8', head = false): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  endAtTurnEnd(res, head ? undefined : body);
}
