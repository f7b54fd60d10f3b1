import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS } from '@app/contracts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from './openapi-document.js';

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument(ENDPOINTS, 'http://localhost:8080');

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document).toMatchObject({ openapi: '3.1.0', info: { version: '1.0.0' } });
  });

  it('documents every declared endpoint once, with the bearer, metrics and session security schemes', () => {
    const paths = document.paths as Record<string, Record<string, unknown>>;
    for (const endpoint of ENDPOINTS) expect(paths[endpoint.path]?.[endpoint.method.toLowerCase()]).toBeDefined();
    expect(Object.keys((document.components as { securitySchemes: object }).securitySchemes).sort()).toEqual(['bearer', 'metrics', 'session']);
  });

  it('declares the statuses the gateway adds by the shape of an operation, besides the ones it lists', () => {
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, unknown>; 'x-route-when'?: unknown }>>;
    const statuses = (path: string, method: string) => Object.keys(paths[path][method].responses).map(Number);
    // JSON body: 413 over the limit, 415 not JSON; credentials: 401, 403; an app answers: 503.
    expect(statuses('/tokens', 'post')).toEqual(expect.arrayContaining([400, 401, 403, 413, 415, 503]));
    // Every operation can answer 400 (no Host, bad percent-encoding); a public one has no 401.
    expect(statuses('/assets/{file}', 'get')).toEqual(expect.arrayContaining([400, 404]));
    expect(statuses('/healthz', 'get')).toContain(400);
    expect(statuses('/healthz', 'get')).not.toContain(401);
    // A raw upload: 413; the rate-limited update check: 429.
    expect(statuses('/logdata/{name}', 'put')).toEqual(expect.arrayContaining([400, 401, 403, 413, 503]));
    expect(Object.values(paths).some((ops) => Object.values(ops).some((op) => op.responses['429'] !== undefined))).toBe(true);
    // The operation that shares its path shape with another says which requests it takes.
    expect(paths['/firmware/{id}/tags/{tag}'].put['x-route-when']).toBeDefined();
  });

  it('declares examples for the main operations, each valid against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const found: string[] = [];
    const visit = (node: unknown, where: string): void => {
      if (!node || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      if (Array.isArray(record.examples) && record.type !== undefined) {
        const { examples, ...schema } = record;
        const validate = ajv.compile(schema);
        for (const example of examples as unknown[]) {
          expect({ where, valid: validate(example), errors: validate.errors ?? null }).toEqual({ where, valid: true, errors: null });
        }
        found.push(where);
      }
      for (const [key, value] of Object.entries(record)) visit(value, `${where}/${key}`);
    };
    visit(document.paths, '#/paths');
    const withExample = (path: string, method: string) => found.some((where) => where.startsWith(`#/paths/${path}/${method}/`));
    for (const [path, method] of [
      ['/firmware', 'get'],
      ['/firmware/{id}', 'get'],
      ['/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}', 'get'],
      ['/firmware/{domain}/{hw_name}/{hw_version}/{fw_name}/{fw_version}/{hwid}', 'get'],
      ['/devices', 'post'],
      ['/devices/{hwid}', 'get'],
      ['/tokens', 'post'],
      ['/logdata/{name}/meta', 'get'],
      ['/health/history', 'get'],
    ]) {
      expect({ path, method, example: withExample(path, method) }).toEqual({ path, method, example: true });
    }
  });
});
