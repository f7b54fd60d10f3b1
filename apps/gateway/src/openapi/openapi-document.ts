import type { TSchema } from '@sinclair/typebox';
import { declaredErrorsOf, type EndpointDef, errorStatusesOf, Problem } from '@app/contracts';
import { isPage } from '../http/error-renderer.js';

/** The machine-readable description declares API version 1.0.0 and OpenAPI 3.1. */
export const API_VERSION = '1.0.0';

const AREA_TAGS = [
  ['Firmware', 'Firmware builds and the public update check'],
  ['Log data', 'Write-once log files'],
  ['Devices', 'Device registry'],
  ['Tags', 'Tags across builds and devices'],
  ['Downloads', 'Signed, short-lived download links'],
  ['Tokens', 'API tokens'],
  ['Members', 'People of a customer'],
  ['Stats', 'Usage statistics and access log'],
  ['Audit', "A customer's audit log"],
  ['Auth', 'Console login and sessions'],
  ['Health', 'Health, status, metrics and this document'],
  ['Admin', 'Service administration'],
] as const;

/** Plain JSON Schema: drops TypeBox's symbol keys and nested $id (the document inlines schemas). */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) => (key === '$id' ? undefined : value)) as Record<string, unknown>;
}

function parameters(endpoint: EndpointDef): unknown[] {
  const result: unknown[] = [];
  const add = (where: 'path' | 'query', schema: TSchema | undefined) => {
    const properties = (schema?.properties ?? {}) as Record<string, TSchema>;
    const required = new Set<string>((schema?.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...rest } = plain(property);
      result.push({ name, in: where, required: where === 'path' || required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  };
  add('path', endpoint.params);
  add('query', endpoint.query);
  return result;
}

function requestBody(endpoint: EndpointDef): unknown {
  switch (endpoint.body.kind) {
    case 'none':
      return undefined;
    case 'json':
      return { required: endpoint.body.required, content: { 'application/json': { schema: plain(endpoint.body.schema) } } };
    case 'stream': {
      const binary = { schema: { type: 'string', format: 'binary' } };
      const content = Object.fromEntries((endpoint.body.contentTypes ?? ['*/*']).map((type) => [type, binary]));
      return { required: true, description: endpoint.body.description, content };
    }
    case 'multipart': {
      const parts = Object.entries(endpoint.body.parts);
      const schema = {
        type: 'object',
        properties: Object.fromEntries(parts.map(([name, part]) => [name, { type: 'string', format: 'binary', description: part.description }])),
        required: parts.filter(([, part]) => part.required).map(([name]) => name),
      };
      return { required: true, description: endpoint.body.description, content: { 'multipart/form-data': { schema } } };
    }
  }
}

function security(endpoint: EndpointDef): unknown[] {
  switch (endpoint.auth.kind) {
    case 'public':
      return [];
    case 'metrics':
      return [{ metrics: [] }, { bearer: [] }, { session: [] }];
    case 'principal':
      return [{ bearer: [] }, { session: [] }];
    case 'refresh':
      return [{ session: [] }]; // the session's refresh cookie (the document has three schemes: bearer, session, metrics)
  }
}

function responses(endpoint: EndpointDef): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, doc] of Object.entries(endpoint.responses)) {
    const contentType = doc.contentType ?? 'application/json';
    out[status] = {
      description: doc.description,
      ...(doc.headers
        ? { headers: Object.fromEntries(Object.entries(doc.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
        : {}),
      // A response with a media type of its own (an HTML page) declares it even without a schema.
      ...(doc.schema || doc.contentType ? { content: { [contentType]: { schema: doc.schema ? plain(doc.schema) : { type: 'string' } } } } : {}),
    };
  }
  const problem = { $ref: '#/components/schemas/Problem' };
  const declaredErrors = declaredErrorsOf(endpoint);
  for (const status of errorStatusesOf(endpoint)) {
    // The codes of this status the endpoint's app may raise; the common ones are on /docs/errors.
    const codes = declaredErrors.filter((error) => error.status === status).map((error) => error.code);
    const codeDoc = codes.length ? { 'x-error-codes': codes } : {};
    const codeText = codes.length ? ` Codes: ${codes.map((code) => `\`${code}\``).join(', ')} (and the common ones on /docs/errors).` : '';
    const errorContent = {
      'application/problem+json': { schema: problem },
      ...(endpoint.errorMode === 'text' ? { 'text/plain': { schema: { type: 'string', description: '<status> <reason phrase>: <message>' } } } : {}),
      ...(isPage(endpoint)
        ? { 'text/html': { schema: { type: 'string', description: 'A page saying what happened, to a browser (Accept: text/html)' } } }
        : {}),
    };
    const declared = out[status] as { content?: Record<string, unknown> } | undefined;
    if (declared) {
      // A status with its own response that may also be an error: both bodies are declared.
      declared.content = { ...declared.content, ...errorContent };
      Object.assign(declared, codeDoc);
      continue;
    }
    out[status] = {
      description:
        (endpoint.errorMode === 'text' ? 'Error: one text line by default, problem+json with Accept: application/json' : 'Error (problem+json)') + codeText,
      content: errorContent,
      ...codeDoc,
    };
  }
  return out;
}

/** The OpenAPI 3.1 document, derived from the endpoint declarations only. */
export function buildOpenApiDocument(endpoints: readonly EndpointDef[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpoints) {
    const operation: Record<string, unknown> = {
      operationId: endpoint.operationId,
      tags: [endpoint.tag],
      summary: endpoint.summary,
      security: security(endpoint),
      responses: responses(endpoint),
    };
    const params = parameters(endpoint);
    if (params.length) operation.parameters = params;
    const body = requestBody(endpoint);
    if (body) operation.requestBody = body;
    if (endpoint.auth.kind === 'principal' && endpoint.auth.scope) operation['x-scope'] = endpoint.auth.scope;
    // Needed as well as x-scope (both are required).
    if (endpoint.auth.kind === 'principal' && endpoint.auth.alsoScope) operation['x-also-scope'] = endpoint.auth.alsoScope;
    // Which of two operations with the same path shape takes a request (docs/api.md "Builds").
    if (endpoint.routeWhen) operation['x-route-when'] = endpoint.routeWhen;
    // Every code the operation's app may raise, beyond the common ones on /docs/errors.
    operation['x-error-codes'] = declaredErrorsOf(endpoint).map((error) => error.code);
    (paths[endpoint.path] ??= {})[endpoint.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Firmware Distribution, Device Registry and Log Storage Service',
      version: API_VERSION,
      description: 'Multi-tenant firmware distribution with a device registry and write-once log storage.',
    },
    servers: [{ url: serverUrl }],
    tags: AREA_TAGS.map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { Problem: plain(Problem) },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'API token (Ed25519-signed JWT)' },
        session: { type: 'apiKey', in: 'cookie', name: '__Host-svc_at', description: 'Console session (access cookie); writes need X-CSRF-Token' },
        metrics: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, for /metrics only' },
      },
    },
  };
}
