import { describe, expect, it } from '@jest/globals';
import { Type } from '@sinclair/typebox';
import { defineEndpoint, type EndpointDef, ENDPOINTS } from '@app/contracts';
import { RouteTable } from './route-table.js';

const endpoint = (method: EndpointDef['method'], path: string): EndpointDef =>
  defineEndpoint({
    operationId: `${method}${path}`,
    method,
    path,
    tag: 'Devices',
    summary: '',
    auth: { kind: 'public' },
    errorMode: 'json',
    params: Type.Object({}),
    body: { kind: 'none' },
    responses: {},
    errors: [],
    target: { kind: 'gateway', handler: 'healthz' },
  });

describe('RouteTable', () => {
  const table = new RouteTable([endpoint('GET', '/devices/{hwid}'), endpoint('GET', '/devices/{hwid}/tags'), endpoint('PUT', '/devices/{hwid}/tags/{tag}')]);

  it('decodes each segment after splitting, so encoded reserved characters stay inside a parameter', () => {
    const found = table.lookup('GET', '/devices/a%2Fb%3Fc%23d%25e');
    expect(found).toMatchObject({ kind: 'found', match: { params: { hwid: 'a/b?c#d%e' } } });
    expect(table.lookup('GET', '/devices/a%2Fb/tags')).toMatchObject({ kind: 'found', match: { endpoint: { path: '/devices/{hwid}/tags' } } });
  });

  it('answers method-not-allowed with the allowed methods, and not-found otherwise', () => {
    expect(table.lookup('DELETE', '/devices/x')).toEqual({ kind: 'method-not-allowed', allowed: ['GET'], errorMode: 'json' });
    expect(table.lookup('GET', '/nothing/here')).toEqual({ kind: 'not-found' });
  });

  it('lets a parameter take a value equal to a literal segment when the literal route lacks the method', () => {
    const devices = new RouteTable([endpoint('POST', '/devices/import'), endpoint('GET', '/devices/{hwid}'), endpoint('PATCH', '/devices/{hwid}')]);
    expect(devices.lookup('POST', '/devices/import')).toMatchObject({ kind: 'found', match: { endpoint: { path: '/devices/import' }, params: {} } });
    expect(devices.lookup('GET', '/devices/import')).toMatchObject({
      kind: 'found',
      match: { endpoint: { path: '/devices/{hwid}' }, params: { hwid: 'import' } },
    });
    expect(devices.lookup('DELETE', '/devices/import')).toEqual({ kind: 'method-not-allowed', allowed: ['POST', 'GET', 'PATCH'], errorMode: 'json' });
  });

  it('answers a refused method in text where every endpoint on the path answers text', () => {
    const all = new RouteTable(ENDPOINTS);
    expect(all.lookup('POST', `/logdata/${'a'.repeat(128)}`)).toMatchObject({ kind: 'method-not-allowed', errorMode: 'text' });
    expect(all.lookup('POST', '/devices/x')).toMatchObject({ kind: 'method-not-allowed', errorMode: 'json' });
  });

  it('reports malformed percent-encoding', () => {
    expect(table.lookup('GET', '/devices/%E0%A4%A')).toMatchObject({ kind: 'bad-path', endpoint: { path: '/devices/{hwid}' } });
  });

  it('routes every declared endpoint to itself', () => {
    const all = new RouteTable(ENDPOINTS);
    for (const declared of ENDPOINTS) {
      // A parameter with a routing constraint (routeWhen) takes a value that meets it.
      const path = declared.path.replace(/\{(\w+)\}/g, (_, name: string) => (declared.routeWhen?.[name] ? '00000000-0000-4000-8000-000000000000' : 'x'));
      const found = all.lookup(declared.method, path);
      expect(found.kind === 'found' && found.match.endpoint).toBe(declared);
    }
  });
});
