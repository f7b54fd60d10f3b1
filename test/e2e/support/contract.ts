import { request as httpRequest } from 'node:http';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { allCatalogedErrors } from '@app/contracts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/**
 * Replies checked against the contract: every JSON body the suite receives from the service
 * is validated against the schema that the service's own `/openapi.json` declares for the
 * operation (method + path template) and status, so a reply that drifts from its contract
 * fails the test that received it. A status the operation does not declare fails too, and an
 * error answered as text must be the one line `<status> <reason>: <message>`.
 */

/** What the checker needs to know of a reply. */
export interface CheckedReply {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly contentType: string | null;
  readonly body: Buffer;
}

interface MediaType {
  readonly schema?: Record<string, unknown>;
}
interface ResponseDoc {
  readonly content?: Record<string, MediaType>;
}
interface OperationDoc {
  readonly operationId: string;
  /** Path parameters whose raw value must match a pattern for this operation to take the request. */
  readonly 'x-route-when'?: Record<string, string>;
  /** The codes the operation's app may raise (set where its domain has an error catalog). */
  readonly 'x-error-codes'?: readonly string[];
  readonly responses: Record<string, ResponseDoc>;
}

/** The codes any operation may answer as its shape implies (the common and the gateway's catalogs). */
const ALWAYS_ALLOWED_CODES: ReadonlySet<string> = new Set([
  ...allCatalogedErrors()
    .filter((error) => error.domain === 'common' || error.domain === 'gateway')
    .map((error) => error.code),
]);
export interface OpenApiDoc {
  readonly paths: Record<string, Record<string, OperationDoc>>;
}

interface Route {
  readonly template: string;
  readonly segments: readonly (string | null)[];
  /** Static segments: the more, the more specific (`/tokens/current` before `/tokens/{id}`). */
  readonly staticCount: number;
}

/** The contract of one running service: its routes and a validator per operation, status and media type. */
export class Contract {
  private readonly ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction | null>();

  constructor(private readonly doc: OpenApiDoc) {
    this.ajv.addSchema(doc, 'openapi.json');
    this.routes = Object.keys(doc.paths)
      .map((template) => {
        const segments = template.split('/').map((segment) => (/^\{[^}]+\}$/.test(segment) ? null : segment));
        return { template, segments, staticCount: segments.filter((s) => s !== null).length };
      })
      .sort((a, b) => b.staticCount - a.staticCount);
  }

  check(reply: CheckedReply, path: string): void {
    const method = reply.method.toLowerCase();
    const route = this.route(method, path);
    if (!route) return; // no operation: the service answers 404/405 from its own rules
    const operation = this.doc.paths[route.template][method];
    const declared = operation.responses[String(reply.status)];
    if (!declared) {
      throw new Error(
        `${reply.method} ${reply.url} answered ${reply.status}, a status ${operation.operationId} does not declare (declared: ${Object.keys(operation.responses).join(', ')}); body: ${reply.body.toString('utf8').slice(0, 300)}`,
      );
    }
    if (reply.method === 'HEAD' || reply.body.length === 0) return;
    const mediaType = (reply.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (mediaType === 'text/plain' && reply.status >= 400 && declared.content?.['text/plain']) {
      const line = reply.body.toString('utf8');
      if (!new RegExp(`^${reply.status} [^\\n:]+: [^\\n]*\\n$`).test(line))
        throw new Error(
          `${reply.method} ${reply.url} answered ${reply.status} with a text error that is not one line "<status> <reason>: <message>": ${JSON.stringify(line.slice(0, 300))}`,
        );
      return;
    }
    if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) return;
    const validate = this.validator(route.template, method, reply.status, declared, mediaType);
    if (validate === null) {
      throw new Error(
        `${reply.method} ${reply.url} answered ${reply.status} ${mediaType}, which ${operation.operationId} does not declare for ${reply.status} (declared: ${Object.keys(declared.content ?? {}).join(', ') || 'no body'})`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(reply.body.toString('utf8'));
    } catch {
      throw new Error(`${reply.method} ${reply.url} answered ${reply.status} ${mediaType} with a body that is not JSON`);
    }
    if (!validate(body)) {
      const problems = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
      throw new Error(
        `${reply.method} ${reply.url} answered ${reply.status} with a body that breaks the contract of ${operation.operationId}:\n  ${problems.join('\n  ')}\nbody: ${reply.body.toString('utf8').slice(0, 600)}`,
      );
    }
    this.checkErrorCode(reply, operation, body);
  }

  /** A problem's `code` must be one its operation declares or a common one (every operation has `x-error-codes`). */
  private checkErrorCode(reply: CheckedReply, operation: OperationDoc, body: unknown): void {
    const declared = operation['x-error-codes'];
    if (reply.status < 400 || declared === undefined || body === null || typeof body !== 'object') return;
    const code = (body as { code?: unknown }).code;
    if (typeof code === 'string' && (declared.includes(code) || ALWAYS_ALLOWED_CODES.has(code))) return;
    throw new Error(
      `${reply.method} ${reply.url} answered ${reply.status} with code ${JSON.stringify(code)}, which ${operation.operationId} does not declare (declared: ${declared.join(', ') || 'none'}; common codes are always allowed)`,
    );
  }

  private route(method: string, path: string): Route | undefined {
    const segments = path.split('/');
    return this.routes.find((route) => {
      const operation = this.doc.paths[route.template][method];
      if (operation === undefined || route.segments.length !== segments.length) return false;
      if (!route.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i]))) return false;
      const templateParts = route.template.split('/');
      return Object.entries(operation['x-route-when'] ?? {}).every(([name, pattern]) =>
        new RegExp(pattern).test(segments[templateParts.indexOf(`{${name}}`)] ?? ''),
      );
    });
  }

  /** The compiled schema of a JSON media type declared for the status (null: no JSON body declared). */
  private validator(template: string, method: string, status: number, declared: ResponseDoc, mediaType: string): ValidateFunction | null {
    const key = `${method} ${template} ${status} ${mediaType}`;
    if (!this.validators.has(key)) {
      const content = declared.content ?? {};
      const type = mediaType in content ? mediaType : undefined;
      const schema = type ? content[type].schema : undefined;
      // A $ref into the document, so `#/components/...` references inside resolve against it.
      const pointer = ['paths', template, method, 'responses', String(status), 'content', type ?? '', 'schema']
        .map((part) => encodeURIComponent(part.replaceAll('~', '~0').replaceAll('/', '~1')))
        .join('/');
      this.validators.set(key, schema ? this.ajv.compile({ $ref: `openapi.json#/${pointer}` }) : null);
    }
    return this.validators.get(key)!;
  }
}

/** One contract per service base URL, fetched once per test file (the module's lifetime). */
const contracts = new Map<string, Promise<Contract>>();
const bases = new Set<string>();

/** Marks `baseUrl` as the service's: replies from under it are checked. */
export function registerService(baseUrl: string): void {
  bases.add(baseUrl.replace(/\/+$/, ''));
}

/** Throws when `reply`, from a registered service, breaks the schema its operation declares for its status. */
export async function checkReplyAgainstContract(reply: CheckedReply): Promise<void> {
  const base = [...bases].find((candidate) => reply.url.startsWith(candidate + '/'));
  if (!base) return;
  // The path as sent (not URL-normalised), without the query.
  const rest = reply.url.slice(base.length);
  const queryAt = rest.search(/[?#]/);
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  if (path === '/openapi.json') return;
  const contract = await contractOf(base);
  if (contract) contract.check(reply, path);
}

async function contractOf(base: string): Promise<Contract | null> {
  let pending = contracts.get(base);
  if (!pending) {
    pending = fetchContract(base);
    contracts.set(base, pending);
    // A service still starting (or stopped by its test) is asked again next time.
    pending.catch(() => contracts.delete(base));
  }
  try {
    return await pending;
  } catch {
    return null;
  }
}

function fetchContract(base: string): Promise<Contract> {
  return new Promise<Contract>((resolve, reject) => {
    const req = httpRequest(`${base}/openapi.json`, { method: 'GET', agent: false, headers: { 'user-agent': 'fds-e2e' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`GET ${base}/openapi.json answered ${res.statusCode}`));
        try {
          resolve(new Contract(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OpenApiDoc));
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${base}/openapi.json: no answer within 10 s`)));
    req.on('error', reject);
    req.end();
  });
}
