import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { type CustomerInfo, ENDPOINTS, type EventDef, IdentityMessages, type MessageDef, type ServiceError } from '@app/contracts';
import { loadConfig, type MessageBus } from '@app/infra';
import { CustomerDirectory } from '@app/platform';
import type { Access } from '../auth/access-policy.js';
import { RouteTable } from '../routing/route-table.js';
import { CORS_MAX_AGE_SECONDS, CorsPolicy } from './cors.js';

const ACME: CustomerInfo = {
  id: '00000000-0000-4000-8000-000000000002',
  domain: 'acme.example',
  status: 'active',
  isSandbox: false,
  corsOrigins: ['https://app.acme.example'],
};
const OTHER: CustomerInfo = {
  id: '00000000-0000-4000-8000-000000000003',
  domain: 'other.example',
  status: 'active',
  isSandbox: false,
  corsOrigins: ['https://other.example'],
};
const UPDATE_CHECK = '/firmware/acme.example/hw/1/fw/1.0';

/** Identity's two answers, counted; customerChanged delivered to the directory. */
function setup() {
  const customers = new Map([ACME, OTHER].map((c) => [c.id, { ...c }]));
  const calls: Record<string, number> = {};
  const listeners: ((p: unknown) => void)[] = [];
  const bus = {
    async send<Req, Res>(message: MessageDef<Req, Res>, request: Req): Promise<Res> {
      calls[message.pattern] = (calls[message.pattern] ?? 0) + 1;
      const all = [...customers.values()];
      if (message.pattern === IdentityMessages.corsOriginsOfAll.pattern) return { origins: all.flatMap((c) => c.corsOrigins ?? []) } as Res;
      const lookup = request as { id?: string; domain?: string };
      return (all.find((c) => c.id === lookup.id || c.domain === lookup.domain) ?? null) as Res;
    },
    subscribe<P>(_event: EventDef<P>, handler: (payload: P) => void) {
      listeners.push(handler as (p: unknown) => void);
      return () => undefined;
    },
  } as unknown as MessageBus;
  const directory = new CustomerDirectory(bus, loadConfig({ LOG_LEVEL: 'error' }));
  directory.onModuleInit();
  const changed = (customer: CustomerInfo) => {
    customers.set(customer.id, customer);
    for (const l of listeners) l({ id: customer.id, domain: customer.domain });
  };
  return { cors: new CorsPolicy(directory), routes: new RouteTable(ENDPOINTS), calls, changed };
}

function request(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

/** Enough of a ServerResponse: headers, status, ended. */
function response() {
  const headers = new Map<string, string>();
  let resolveEnded: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const res = {
    statusCode: 200,
    destroyed: false,
    setHeader: (name: string, value: string) => headers.set(name.toLowerCase(), String(value)),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    end: () => resolveEnded(),
  };
  return { res: res as unknown as ServerResponse, headers, ended, status: () => res.statusCode };
}

const acting = (customer: CustomerInfo | null): Access =>
  ({
    principal: null,
    customer: customer ? { id: customer.id, domain: customer.domain, isSandbox: false } : null,
    actingAsAdmin: false,
  }) as unknown as Access;

const endpoint = (method: string, path: string) => {
  const lookup = new RouteTable(ENDPOINTS).lookup(method, path);
  if (lookup.kind !== 'found') throw new Error(`no ${method} ${path}`);
  return lookup.match;
};

describe('CORS per customer', () => {
  it('a response for a customer carries Allow-Origin and Vary for a listed origin only, never Allow-Credentials', async () => {
    const { cors } = setup();
    const firmware = endpoint('GET', '/firmware');
    const listed = response();
    await cors.allowResponse(listed.res, 'https://app.acme.example', firmware.endpoint, firmware.params, acting(ACME));
    expect(Object.fromEntries(listed.headers)).toEqual({ 'access-control-allow-origin': 'https://app.acme.example', vary: 'Origin' });
    for (const [origin, customer] of [
      ['https://other.example', ACME],
      ['https://app.acme.example', OTHER],
      ['https://app.acme.example', null],
    ] as const) {
      const refused = response();
      await cors.allowResponse(refused.res, origin, firmware.endpoint, firmware.params, acting(customer));
      expect(refused.headers.size).toBe(0);
    }
  });

  it('the public update check uses the list of the domain in its path', async () => {
    const { cors } = setup();
    const check = endpoint('GET', UPDATE_CHECK);
    const listed = response();
    await cors.allowResponse(listed.res, 'https://app.acme.example', check.endpoint, check.params, acting(null));
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.acme.example');
    const other = response();
    await cors.allowResponse(other.res, 'https://other.example', check.endpoint, check.params, acting(null));
    expect(other.headers.size).toBe(0);
  });

  it('answers a preflight: update-check paths by their domain, other paths by the union of all lists; refused is 403 without CORS headers', async () => {
    const { cors, routes } = setup();
    const allowed = response();
    expect(
      await cors.answerOptions(request({ origin: 'https://other.example', 'access-control-request-method': 'PATCH' }), allowed.res, routes, '/firmware/abc'),
    ).toBe(true);
    await allowed.ended;
    expect(allowed.status()).toBe(204);
    expect(Object.fromEntries(allowed.headers)).toEqual({
      'access-control-allow-origin': 'https://other.example',
      vary: 'Origin',
      'access-control-allow-methods': 'GET, PATCH',
      'access-control-allow-headers': 'Authorization, Content-Type, X-CSRF-Token',
      'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
    });
    const check = response();
    await cors.answerOptions(request({ origin: 'https://app.acme.example', 'access-control-request-method': 'GET' }), check.res, routes, UPDATE_CHECK);
    await check.ended;
    expect(check.headers.get('access-control-allow-origin')).toBe('https://app.acme.example');

    for (const [origin, method, path] of [
      ['https://other.example', 'GET', UPDATE_CHECK], // listed by another customer than the path's
      ['https://evil.example', 'GET', '/firmware'],
      ['https://other.example', 'DELETE', '/firmware/abc'], // a method the path lacks
    ]) {
      const refused = response();
      await expect(cors.answerOptions(request({ origin, 'access-control-request-method': method }), refused.res, routes, path)).rejects.toMatchObject({
        status: 403,
      });
      expect(refused.headers.size).toBe(0);
    }
  });

  it('a plain OPTIONS on a path that exists is 204 with Allow; an unknown path is left to the router', async () => {
    const { cors, routes } = setup();
    const plain = response();
    expect(await cors.answerOptions(request({}), plain.res, routes, '/firmware')).toBe(true);
    await plain.ended;
    expect(plain.status()).toBe(204);
    expect(plain.headers.get('allow')).toBe('PUT, GET');
    expect(
      await cors.answerOptions(request({ origin: 'https://other.example', 'access-control-request-method': 'GET' }), response().res, routes, '/nothing/here'),
    ).toBe(false);
  });

  it('a changed list takes effect at once on customerChanged (cached otherwise)', async () => {
    const { cors, routes, calls, changed } = setup();
    const ask = async () => {
      const r = response();
      try {
        await cors.answerOptions(request({ origin: 'https://new.example', 'access-control-request-method': 'GET' }), r.res, routes, '/firmware');
        await r.ended;
        return r.status();
      } catch (err) {
        return (err as ServiceError).status;
      }
    };
    expect(await ask()).toBe(403);
    expect(await ask()).toBe(403);
    expect(calls[IdentityMessages.corsOriginsOfAll.pattern]).toBe(1);
    changed({ ...OTHER, corsOrigins: ['https://new.example'] });
    expect(await ask()).toBe(204);
  });
});
