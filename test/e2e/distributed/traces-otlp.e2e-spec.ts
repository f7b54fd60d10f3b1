import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { customerWithOwner, expectStatus } from '../support/auth.js';
import { eventually } from '../support/factories.js';
import { HttpClient } from '../support/http.js';
import { startRuntime, waitForStatus, type Runtime } from '../support/runtime.js';
import { freePort, isAlive, readStackState, spawnApp, stopPid, writeStackState, type StackState } from '../support/stack.js';

/**
 * Tracing as an operator switches it on (distributed runtime only): the processes export over
 * OTLP/HTTP with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` to a collector, here a node:http
 * server in the test that decodes what they send. A console login request through a traced
 * gateway, answered by a traced identity app whose mail job runs in a traced worker, must
 * make ONE trace holding the gateway's request, identity's handling, its PostgreSQL queries,
 * the job and its SMTP send, each process under its own service name.
 *
 * The stack's identity and worker are replaced by traced ones for the file (so no untraced
 * replica takes the work) and started again as they were afterwards.
 */

function stateDir(): string {
  const dir = process.env.E2E_STATE_DIR;
  if (!dir) throw new Error('E2E_STATE_DIR is not set: the e2e-distributed globalSetup did not run');
  return dir;
}

/** One span as OTLP/JSON carries it, with its resource's service name. */
interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] }[] }[];
  }[];
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? [])
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
  return out;
}

/** A collector: POST /v1/traces with OTLP/JSON bodies, every span kept. */
async function startCollector(): Promise<{ server: Server; url: string; spans: ReceivedSpan[]; contentTypes: Set<string> }> {
  const spans: ReceivedSpan[] = [];
  const contentTypes = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      contentTypes.add(`${req.method} ${req.url} ${req.headers['content-type']}`);
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest;
        for (const resource of body.resourceSpans ?? []) {
          const service = String(attributesOf(resource.resource?.attributes)['service.name']);
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, contentTypes };
}

/** OTLP span kinds (1 internal, 2 server, 3 client, 4 producer, 5 consumer). */
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

describe('one trace across processes, exported over OTLP/HTTP JSON (distributed)', () => {
  let rt: Runtime;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let traced: HttpClient;
  let ownerEmail: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    rt = await startRuntime();
    // The customer first, while the stack's identity answers.
    ownerEmail = (await customerWithOwner(rt)).ownerEmail;
    collector = await startCollector();
    const state = readStackState(stateDir());
    const tracing = {
      ...state.appEnv,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Export within a fraction of a second rather than the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    for (const app of ['identity', 'worker'] as const) {
      await stopPid(state.pids[app]!);
      children.push(spawnApp(app, tracing, state.logDir));
    }
    const port = await freePort();
    children.push(spawnApp('gateway', { ...tracing, PORT: String(port) }, state.logDir));
    traced = new HttpClient(`http://127.0.0.1:${port}`);
    // Starts are slow on a loaded machine; the login below waits for identity in turn.
    const up = await eventually(
      () => traced.get('/status').catch(() => null),
      (r) => r?.status === 200,
      { timeoutMs: 150_000, intervalMs: 200 },
    );
    if (up?.status !== 200) throw new Error('the traced gateway did not start');
  }, 180_000);

  afterAll(async () => {
    // Leave the stack as it was: the traced processes stopped, identity and worker untraced again.
    for (const child of children) if (child.pid) await stopPid(child.pid);
    const state: StackState = readStackState(stateDir());
    for (const app of ['identity', 'worker'] as const) {
      if (state.pids[app] && isAlive(state.pids[app])) continue;
      const child = spawnApp(app, state.appEnv, state.logDir);
      child.unref(); // the global teardown stops it by pid
      state.pids[app] = child.pid!;
    }
    writeStackState(stateDir(), state);
    await waitForStatus(rt.baseUrl, 'ok', 60_000).catch(() => undefined);
    collector?.server.close();
    await rt?.stop();
  });

  it('a login request: gateway, identity, PostgreSQL, the mail job and its SMTP send in one trace', async () => {
    const login = await eventually(
      () => traced.post('/auth/login', { json: { email: ownerEmail } }),
      (r) => r.status !== 503, // identity (the traced one) not listening yet
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    const res = expectStatus(login, 202);
    const requestId = res.header('x-request-id');

    const byRequest = (s: ReceivedSpan) => s.service === 'gateway' && s.kind === SERVER && s.attributes['http.request_id'] === requestId;
    const found = await eventually(
      async () => {
        const root = collector.spans.find(byRequest);
        const trace = root ? collector.spans.filter((s) => s.traceId === root.traceId) : [];
        return { root, trace };
      },
      ({ trace }) => trace.some((s) => s.service === 'worker' && s.name === 'smtp send'),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const { root, trace } = found;
    if (!root) throw new Error(`no gateway span for request ${requestId}; received: ${[...collector.contentTypes].join(', ')}`);
    const names = trace.map((s) => `${s.service}: ${s.name}`);
    expect(root.name).toBe('POST /auth/login');

    // The gateway's request to identity over NATS, with the messaging attributes, and identity's handling of it.
    const send = trace.find((s) => s.service === 'gateway' && s.kind === CLIENT && s.attributes['messaging.system'] === 'nats');
    expect(send?.attributes).toMatchObject({ 'messaging.operation.type': 'send' });
    const handled = trace.find((s) => s.service === 'identity' && s.kind === SERVER && s.parentSpanId === send?.spanId);
    expect(handled?.attributes).toMatchObject({ 'messaging.system': 'nats', 'messaging.destination.name': send?.attributes['messaging.destination.name'] });

    // PostgreSQL queries made by identity while handling it.
    const queries = trace.filter((s) => s.service === 'identity' && s.kind === CLIENT && s.attributes['db.system.name'] === 'postgresql');
    expect(queries.length).toBeGreaterThan(0);

    // The mail job in the worker, and its SMTP send, same trace.
    const job = trace.find((s) => s.service === 'worker' && s.kind === CONSUMER && s.name.startsWith('job email/'));
    expect(job).toBeDefined();
    const smtp = trace.find((s) => s.service === 'worker' && s.name === 'smtp send')!;
    expect(smtp.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'network.protocol.name': 'smtp' });
    expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['gateway', 'identity', 'worker']));
    expect(names.length).toBeGreaterThan(5);
  }, 180_000);
});
