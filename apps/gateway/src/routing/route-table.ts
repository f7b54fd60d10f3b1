import type { EndpointDef, ErrorMode, HttpMethod } from '@app/contracts';

export interface RouteMatch {
  readonly endpoint: EndpointDef;
  /** Path parameters, percent-decoded per segment (so `%2F` inside a HW id stays in it). */
  readonly params: Record<string, string>;
}

export type RouteLookup =
  | { readonly kind: 'found'; readonly match: RouteMatch }
  /** `errorMode`: text when every endpoint on the path answers errors as text. */
  | { readonly kind: 'method-not-allowed'; readonly allowed: readonly HttpMethod[]; readonly errorMode: ErrorMode }
  | { readonly kind: 'not-found' }
  /** The route is the endpoint's, but a parameter is not valid percent-encoding. */
  | { readonly kind: 'bad-path'; readonly endpoint: EndpointDef };

interface CompiledRoute {
  readonly endpoint: EndpointDef;
  /** Literal segment, or null for a parameter (name in `names`). */
  readonly segments: readonly (string | null)[];
  readonly names: readonly string[];
  /** More literal segments win over parameters (e.g. /logdata/{name}/meta vs /x/{a}/{b}). */
  readonly literalCount: number;
  /** The endpoint's `routeWhen`: segment index and the pattern its raw value must match. */
  readonly constraints: readonly (readonly [number, RegExp])[];
}

/**
 * Routes derived from the endpoint declarations. Paths are split on `/` before decoding, so
 * reserved characters percent-encoded inside a parameter never change the route.
 */
export class RouteTable {
  private readonly bySegmentCount = new Map<number, CompiledRoute[]>();

  constructor(endpoints: readonly EndpointDef[]) {
    for (const endpoint of endpoints) {
      const parts = endpoint.path.split('/').slice(1);
      const names: string[] = [];
      const segments = parts.map((part) => {
        const param = /^\{(\w+)\}$/.exec(part);
        if (param) {
          names.push(param[1]);
          return null;
        }
        return part;
      });
      const constraints = Object.entries(endpoint.routeWhen ?? {}).map(([name, pattern]) => {
        const at = parts.indexOf(`{${name}}`);
        if (at === -1) throw new Error(`${endpoint.operationId}: routeWhen names ${name}, which is not a path parameter`);
        return [at, new RegExp(pattern)] as const;
      });
      const route: CompiledRoute = { endpoint, segments, names, literalCount: segments.filter((s) => s !== null).length, constraints };
      const list = this.bySegmentCount.get(segments.length) ?? [];
      list.push(route);
      list.sort((a, b) => b.literalCount - a.literalCount);
      this.bySegmentCount.set(segments.length, list);
    }
  }

  lookup(method: string, rawPath: string): RouteLookup {
    // parts[0] is the empty string before the leading slash: segment i is parts[i + 1].
    const parts = rawPath.split('/');
    const candidates = this.bySegmentCount.get(parts.length - 1);
    if (!candidates) return { kind: 'not-found' };
    // The most literal route with this method wins; a parameter also takes a value equal to a
    // literal segment (GET /devices/import is the device `import`: only POST /devices/import exists).
    // Plain loops: every request passes here (the update check included).
    let allowed: HttpMethod[] | null = null;
    let errorMode: ErrorMode = 'text';
    for (const route of candidates) {
      if (!matches(route, parts)) continue;
      if (route.endpoint.method !== method) {
        allowed ??= [];
        if (!allowed.includes(route.endpoint.method)) allowed.push(route.endpoint.method);
        if (route.endpoint.errorMode === 'json') errorMode = 'json';
        continue;
      }
      const params: Record<string, string> = {};
      let index = 0;
      for (let i = 0; i < route.segments.length; i++) {
        if (route.segments[i] !== null) continue;
        const raw = parts[i + 1];
        let value = raw;
        if (raw.includes('%')) {
          try {
            value = decodeURIComponent(raw);
          } catch {
            return { kind: 'bad-path', endpoint: route.endpoint };
          }
        }
        params[route.names[index++]] = value;
      }
      return { kind: 'found', match: { endpoint: route.endpoint, params } };
    }
    return allowed ? { kind: 'method-not-allowed', allowed, errorMode } : { kind: 'not-found' };
  }
}

/** `parts`: the path split on '/', the empty string before the leading slash first. */
function matches(route: CompiledRoute, parts: readonly string[]): boolean {
  const segments = route.segments;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (segment !== null && segment !== parts[i + 1]) return false;
  }
  for (const [i, pattern] of route.constraints) if (!pattern.test(parts[i + 1])) return false;
  return true;
}
