import type { Static, TSchema } from '@sinclair/typebox';
import type { RequestContext } from '../context.js';
import type { EnforcedProtection } from '../admin/protection.messages.js';
import type { CatalogedError } from '../errors/error-registry.js';
import type { FileRef, StagedFile } from '../files.js';
import type { MessageDef } from '../messages/message.js';
import type { Scope } from '../scopes.js';

/**
 * Every HTTP endpoint is declared once, here in contracts. The gateway derives its routing,
 * authentication, input validation and the OpenAPI document from these declarations; the
 * owning app implements the target message. Nothing else describes an endpoint.
 */

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The areas that group the operations in the OpenAPI document and on /docs. */
export type AreaTag = 'Firmware' | 'Log data' | 'Devices' | 'Tags' | 'Downloads' | 'Tokens' | 'Members' | 'Stats' | 'Audit' | 'Auth' | 'Health' | 'Admin';

/**
 * `text` endpoints answer errors as one text/plain line unless the request
 * sends `Accept: application/json`; `json` endpoints always answer application/problem+json
 * (docs/api.md "Limits and errors").
 */
export type ErrorMode = 'text' | 'json';

export type AuthRequirement =
  /** No credentials needed (a credential, if sent, is still verified for the request log). */
  | { readonly kind: 'public' }
  /** `Authorization: Bearer <METRICS_TOKEN>` or an administrator credential. */
  | { readonly kind: 'metrics' }
  /**
   * A Bearer API token or a session. `scope`: the scope the endpoint needs. `tenant`: the
   * request acts on one customer (the credential's, or `customer=` for administrators).
   * `admin`: the administrator API ('read' lets read-only administrators in).
   */
  | {
      readonly kind: 'principal';
      readonly scope?: Scope;
      /** A second scope the endpoint needs as well (it shows data of two areas, e.g. builds and devices). */
      readonly alsoScope?: Scope;
      readonly tenant: boolean;
      readonly admin?: 'read' | 'full';
      /** Refused for sandbox credentials: 403 `not available in the sandbox` (docs/api.md "Sandbox and documentation"). */
      readonly notInSandbox?: boolean;
    }
  /**
   * The session's refresh cookie (POST /auth/refresh): the gateway passes the refresh cookie
   * and the presented CSRF token (EndpointCall.refresh); the app checks both.
   */
  | { readonly kind: 'refresh' };

export type BodySpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'json'; readonly schema: TSchema; readonly required: boolean; readonly maxBytes?: number }
  /**
   * A raw request body streamed by the gateway into the object store (never over the bus),
   * hashed on the way; the app receives a StagedFile. `maxBytes` may depend on the customer.
   */
  | {
      readonly kind: 'stream';
      readonly maxBytes: (customer: { isSandbox: boolean }) => number;
      readonly description: string;
      /** Media types accepted (without parameters); any other answers 415 before the body is read. Omitted: any. */
      readonly contentTypes?: readonly string[];
    }
  /**
   * multipart/form-data: each declared part is streamed by the gateway into the object store
   * (one after the other, hashed and size-limited like `stream`; 413 before storing when the
   * Content-Length already says too much); the app receives `files`. Undeclared parts are
   * skipped, a declared part twice is a 400.
   */
  | { readonly kind: 'multipart'; readonly parts: Readonly<Record<string, MultipartPart>>; readonly description: string };

/** What a multipart part's size limit may depend on. */
export interface UploadLimits {
  readonly isSandbox: boolean;
  /** FIRMWARE_MAX_BYTES. */
  readonly firmwareMaxBytes: number;
}

export interface MultipartPart {
  readonly required: boolean;
  readonly maxBytes: (limits: UploadLimits) => number;
  readonly description: string;
}

/** Per-client request rate of an endpoint (429 with Retry-After past it), counted in each gateway. */
export interface RateLimitSpec {
  /** Endpoints naming the same bucket share one count per client. */
  readonly bucket: string;
  readonly scope: 'ip';
  /** The ServiceConfig setting that holds the requests allowed per minute. */
  readonly setting: 'updateCheckRatePerMinute' | 'deviceReportRatePerMinute';
}

export interface SetCookie {
  readonly name: string;
  readonly value: string;
  /** Seconds; 0 clears the cookie. Omitted: a session cookie. */
  readonly maxAge?: number;
}

/** What the gateway should send, computed from an app's reply by the endpoint's `reply`. */
export type HttpReply =
  | {
      readonly kind: 'json';
      readonly status: number;
      readonly body: unknown;
      readonly headers?: Record<string, string>;
      readonly cookies?: readonly SetCookie[];
    }
  | { readonly kind: 'text'; readonly status: number; readonly body: string; readonly contentType?: string; readonly headers?: Record<string, string> }
  | { readonly kind: 'empty'; readonly status: number; readonly headers?: Record<string, string>; readonly cookies?: readonly SetCookie[] }
  | { readonly kind: 'redirect'; readonly status: 302 | 303; readonly location: string; readonly cookies?: readonly SetCookie[] }
  /** A page (text/html; the gateway adds CSP and the other page headers). */
  | {
      readonly kind: 'html';
      readonly status: number;
      readonly body: string;
      readonly headers?: Record<string, string>;
      readonly cookies?: readonly SetCookie[];
    }
  /** 302 to a fresh 5-minute /dl link for the file. */
  | { readonly kind: 'download-link'; readonly file: FileRef }
  /** Headers of the file only (HEAD). */
  | { readonly kind: 'file-head'; readonly file: FileRef }
  /** 304 Not Modified (a matching If-None-Match): no body, only validators and caching headers. */
  | { readonly kind: 'not-modified'; readonly headers?: Record<string, string> };

/** The payload of a message sent on behalf of an endpoint. */
export interface EndpointCall<Params, Query, Body> {
  readonly ctx: RequestContext;
  readonly params: Params;
  readonly query: Query;
  readonly body: Body;
  /** Set for `stream` bodies. */
  readonly file?: StagedFile;
  /** Set for `multipart` bodies: the staged parts by name (the app owns them: keeps or deletes). */
  readonly files?: Readonly<Record<string, StagedFile>>;
  /** Content-Type of the request as sent (for stream bodies, stored with the file). */
  readonly contentType?: string;
  /** Request headers an endpoint declared it needs (lower-case names). */
  readonly headers?: Record<string, string>;
  /** `forwardTarget` endpoints: the request target's path and query (after `?`, '' for none) exactly as sent, not decoded. */
  readonly target?: { readonly path: string; readonly query: string };
  /** `refresh` endpoints: the refresh cookie and the CSRF token as sent (null when absent). */
  readonly refresh?: { readonly token: string | null; readonly csrfToken: string | null };
}

export interface ReplyContext {
  /** The client asked for JSON (`Accept: application/json`). */
  readonly json: boolean;
  readonly baseUrl: string;
  readonly path: string;
  /** How much longer than usual devices are asked to wait before their next check (1 normally; more when the gateway is busy). */
  readonly pollStretch: number;
}

export interface ResponseDoc {
  readonly description: string;
  readonly schema?: TSchema;
  /** Default application/json; text endpoints document text/plain too. */
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

export interface EndpointDef<P extends TSchema = TSchema, Q extends TSchema = TSchema, R = unknown> {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** OpenAPI-style template, e.g. `/logdata/{name}`. */
  readonly path: string;
  readonly tag: AreaTag;
  readonly summary: string;
  readonly auth: AuthRequirement;
  readonly errorMode: ErrorMode;
  readonly params?: P;
  readonly query?: Q;
  readonly body: BodySpec;
  /** Lower-case request header names passed through to the app (e.g. if-match). */
  readonly forwardHeaders?: readonly string[];
  /** The app receives the request target as sent (EndpointCall.target): the update check signs its answers over it. */
  readonly forwardTarget?: boolean;
  /** Writes are refused in maintenance mode unless this is true. */
  readonly allowedInMaintenance?: boolean;
  /** Per-client request rate (the public update check). */
  readonly rateLimit?: RateLimitSpec;
  /**
   * Routing constraints: the route matches only when these path parameters (raw segments)
   * match the patterns (regular expression sources); otherwise the next candidate route is
   * tried (`PUT /firmware/{id}/tags/{tag}` is the tag route only when `{id}` is a build id,
   * otherwise the upload path form: docs/api.md "Builds").
   */
  readonly routeWhen?: Readonly<Record<string, string>>;
  readonly responses: Readonly<Record<number, ResponseDoc>>;
  /**
   * The catalog errors this endpoint's app may raise (`LogdataErrors.log_file_not_found`),
   * documented per status with their codes; the common ones its shape implies are added
   * (errorStatusesOf, CommonErrors).
   */
  readonly errors: readonly CatalogedError[];
  readonly target:
    | {
        readonly kind: 'message';
        readonly message: MessageDef<EndpointCall<Static<P>, Static<Q>, unknown>, R>;
        readonly reply: (result: R, ctx: ReplyContext) => HttpReply;
        /**
         * A change of maintenance or the IP blocks: the protection state the app's reply carries.
         * The gateway that forwarded the change enforces it before it answers, so the caller's
         * next request through it sees the change (docs/api.md "Maintenance mode and IP blocks").
         */
        readonly protection?: (result: R) => EnforcedProtection;
      }
    /** Answered by the gateway itself (health, metrics, openapi, jwks proxy, download links). */
    | { readonly kind: 'gateway'; readonly handler: GatewayHandler };
}

/**
 * An endpoint of any schemas and reply, the element type of an endpoint list: each entry's
 * types are checked where it is defined (defineEndpoint), and they differ from entry to entry.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of differently typed endpoints, see above
export type AnyEndpointDef = EndpointDef<any, any, any>;

/** `jwks`: identity's token keys and the firmware app's update-answer keys in one set (docs/api.md "Signed answers"). */
export type GatewayHandler = 'healthz' | 'readyz' | 'status' | 'metrics' | 'openapi' | 'download' | 'page' | 'jwks';

/** Identity helper that keeps the generic parameters inferred at the declaration site. */
export function defineEndpoint<P extends TSchema, Q extends TSchema, R>(def: EndpointDef<P, Q, R>): EndpointDef<P, Q, R> {
  return def;
}

/** The header that carries the CSRF token, and the form/query field name (docs/api.md "Sessions and CSRF"). */
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = 'csrf';

/** The session cookie names (docs/api.md "Sessions and CSRF"). */
export const SESSION_COOKIES = {
  refresh: '__Host-svc_rt',
  csrf: '__Host-svc_csrf',
  access: '__Host-svc_at',
} as const;
