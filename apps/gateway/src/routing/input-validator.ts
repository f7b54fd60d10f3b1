import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { EndpointDef } from '@app/contracts';
import { coercingAjv, exactAjv, validatedValue } from '@app/platform';

interface Validators {
  readonly params?: ValidateFunction;
  readonly query?: ValidateFunction;
  readonly body?: ValidateFunction;
}

/**
 * Validates params, query and JSON bodies against the endpoint's declared schemas (compiled
 * once at start) with the service's one schema validation (libs/platform schema-validation.ts:
 * its rules on text and dates hold for every schema). Query and path values are strings on
 * the wire and are coerced to the schema's types; defaults are applied. A failure is a 400
 * naming the rule (`x-error` when the schema gives one).
 */
export class InputValidator {
  private readonly validators = new Map<EndpointDef, Validators>();

  constructor(endpoints: readonly EndpointDef[]) {
    for (const endpoint of endpoints) {
      this.validators.set(endpoint, {
        params: endpoint.params ? coercingAjv.compile(endpoint.params) : undefined,
        query: endpoint.query ? coercingAjv.compile(endpoint.query) : undefined,
        body: endpoint.body.kind === 'json' ? exactAjv.compile(endpoint.body.schema) : undefined,
      });
    }
  }

  params(endpoint: EndpointDef, params: Record<string, string>): Record<string, unknown> {
    return validatedValue(this.validators.get(endpoint)?.params, { ...params }, 'path parameter');
  }

  query(endpoint: EndpointDef, search: URLSearchParams): Record<string, unknown> {
    const declared = endpoint.query?.properties as Record<string, TSchema> | undefined;
    const query: Record<string, unknown> = {};
    for (const name of new Set(search.keys())) {
      const schema = declared?.[name];
      if (!schema) continue; // undeclared parameters are ignored, as most HTTP APIs do
      const values = search.getAll(name);
      query[name] = schema.type === 'array' ? values : values[0];
    }
    return validatedValue(this.validators.get(endpoint)?.query, query, 'query parameter');
  }

  body(endpoint: EndpointDef, body: unknown): unknown {
    return validatedValue(this.validators.get(endpoint)?.body, body, 'body');
  }
}
