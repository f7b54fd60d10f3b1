/**
 * The operations of the service's `/openapi.json`, and what the document allows for a request:
 * which operations its path can reach, which statuses they declare, whether their errors may be
 * a text line. The fuzz test asks this after every reply.
 */

export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
}

export interface ParameterDoc {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required?: boolean;
  readonly schema?: JsonSchema;
}

export interface OperationDoc {
  readonly operationId: string;
  readonly parameters?: readonly ParameterDoc[];
  readonly requestBody?: { readonly required?: boolean; readonly content: Readonly<Record<string, { readonly schema?: JsonSchema }>> };
  readonly responses: Readonly<Record<string, { readonly content?: Readonly<Record<string, unknown>> }>>;
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  /** Path parameters whose raw value must match a pattern for this operation to take the request. */
  readonly 'x-route-when'?: Readonly<Record<string, string>>;
}

export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationDoc>>>>;
}

const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'];

export interface Operation {
  readonly id: string;
  /** Upper case. */
  readonly method: string;
  readonly template: string;
  readonly doc: OperationDoc;
  /** The template split on `/` (the empty string before the leading slash first); null for a parameter. */
  readonly segments: readonly (string | null)[];
  /** The parameter name of each null segment, in order. */
  readonly pathParams: readonly ParameterDoc[];
  readonly queryParams: readonly ParameterDoc[];
  readonly statuses: ReadonlySet<number>;
  /** Some error response declares text/plain (errors are a text line unless the client asks for JSON). */
  readonly textErrors: boolean;
  /** Declares no security requirement or an empty one. */
  readonly isPublic: boolean;
  /** x-route-when: segment index and the pattern its raw value must match. */
  readonly routeWhen: readonly (readonly [number, RegExp])[];
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!HTTP_METHODS.includes(method) || !op?.responses) continue;
      const segments = template.split('/').map((segment) => (/^\{[^}]+\}$/.test(segment) ? null : segment));
      const params = op.parameters ?? [];
      const pathParams = template
        .split('/')
        .filter((segment) => /^\{[^}]+\}$/.test(segment))
        .map((segment) => {
          const name = segment.slice(1, -1);
          return params.find((p) => p.in === 'path' && p.name === name) ?? { name, in: 'path' as const, required: true, schema: { type: 'string' } };
        });
      const errors = Object.entries(op.responses).filter(([status]) => Number(status) >= 400);
      operations.push({
        id: op.operationId,
        method: method.toUpperCase(),
        template,
        doc: op,
        segments,
        pathParams,
        queryParams: params.filter((p) => p.in === 'query'),
        statuses: new Set(Object.keys(op.responses).map(Number)),
        textErrors: errors.some(([, response]) => response.content !== undefined && 'text/plain' in response.content),
        isPublic: !op.security || op.security.length === 0 || op.security.some((requirement) => Object.keys(requirement).length === 0),
        routeWhen: Object.entries(op['x-route-when'] ?? {}).map(([name, pattern]) => [template.split('/').indexOf(`{${name}}`), new RegExp(pattern)] as const),
      });
    }
  }
  return operations;
}

/** What the document allows as an answer to one request. */
export interface Expectation {
  /** The operations of this method whose template the path matches. */
  readonly operations: readonly Operation[];
  readonly statuses: ReadonlySet<number>;
  /**
   * How many of those operations answer errors as a text line when the client does not ask
   * for JSON (for a method the path lacks: how many of the path's operations do, which decide
   * the form of the 405).
   */
  readonly textErrors: 'none' | 'some' | 'all';
  /** The media types the operations declare for each status. */
  readonly mediaTypes: (status: number) => ReadonlySet<string>;
}

/**
 * The operations a request can reach. A template matches when its literal segments equal the
 * path's (raw, not decoded) and it has as many segments; a parameter takes any value that
 * meets the operation's x-route-when (an operation whose pattern fails does not match). The
 * allowed statuses are those the matching operations declare, plus 405 when some matching
 * template lacks the method (OPTIONS: 204 or 403), plus 404 when no template matches at all.
 */
export class OpenApiRouter {
  private readonly templates: { segments: readonly (string | null)[]; operations: Operation[] }[] = [];

  constructor(operations: readonly Operation[]) {
    const byTemplate = new Map<string, Operation[]>();
    for (const op of operations) byTemplate.set(op.template, [...(byTemplate.get(op.template) ?? []), op]);
    for (const ops of byTemplate.values()) this.templates.push({ segments: ops[0].segments, operations: ops });
  }

  expect(method: string, target: string): Expectation {
    const queryAt = target.indexOf('?');
    const parts = (queryAt === -1 ? target : target.slice(0, queryAt)).split('/');
    const routable = (op: Operation) => op.routeWhen.every(([at, pattern]) => pattern.test(parts[at] ?? ''));
    const matching = this.templates
      .filter((t) => t.segments.length === parts.length && t.segments.every((segment, i) => segment === null || segment === parts[i]))
      .map((t) => ({ ...t, operations: t.operations.filter(routable) }))
      .filter((t) => t.operations.length > 0);
    const operations = matching.flatMap((t) => t.operations.filter((op) => op.method === method));
    const statuses = new Set<number>(operations.flatMap((op) => [...op.statuses]));
    // OPTIONS on a path that exists is answered, not refused (docs/api.md "CORS"): 204, or 403 for a refused preflight.
    if (matching.some((t) => !t.operations.some((op) => op.method === method))) for (const s of method === 'OPTIONS' ? [204, 403] : [405]) statuses.add(s);
    if (matching.length === 0) statuses.add(404);
    const deciding = operations.length > 0 ? operations : matching.flatMap((t) => t.operations);
    const text = deciding.filter((op) => op.textErrors).length;
    const mediaTypes = (status: number) => new Set(operations.flatMap((op) => Object.keys(op.doc.responses[String(status)]?.content ?? {})));
    return { operations, statuses, textErrors: text === 0 ? 'none' : text === deciding.length ? 'all' : 'some', mediaTypes };
  }
}
