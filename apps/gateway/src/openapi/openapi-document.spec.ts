import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS } from '@app/contracts';
import { Validator } from '@seriousme/openapi-schema-validator';
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
});
