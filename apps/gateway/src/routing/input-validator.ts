import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ServiceError, type EndpointDef } from '@app/contracts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

type Location = 'path parameter' | 'query parameter' | 'body';

interface Validators {
  readonly params?: ValidateFunction;
  readonly query?: ValidateFunction;
  readonly body?: ValidateFunction;
}

/**
 * Validates params, query and JSON bodies against the endpoint's declared schemas (compiled
 * once at start). Query and path values are strings on the wire and are coerced to the
 * schema's types; defaults are applied. A failure is a 400 naming the rule (`x-error` when
 * the schema gives one).
 */
export class InputValidator {
  private readonly coercing = addFormats(new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, verbose: true, strict: false }));
  private readonly exact = addFormats(new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, verbose: true, strict: false }));
  private readonly validators = new Map<EndpointDef, Validators>();

  constructor(endpoints: readonly EndpointDef[]) {
    for (const endpoint of endpoints) {
      this.validators.set(endpoint, {
        params: endpoint.params ? this.coercing.compile(endpoint.params) : undefined,
        query: endpoint.query ? this.coercing.compile(endpoint.query) : undefined,
        body: endpoint.body.kind === 'json' ? this.exact.compile(endpoint.body.schema) : undefined,
      });
    }
  }

  params(endpoint: EndpointDef, params: Record<string, string>): Record<string, unknown> {
    return this.run(this.validators.get(endpoint)?.params, { ...params }, 'path parameter');
  }

  query(endpoint: EndpointDef, search: URLSearchParams): Record<string, unknown> {
    const validate = this.validators.get(endpoint)?.query;
    const declared = endpoint.query?.properties as Record<string, TSchema> | undefined;
    const query: Record<string, unknown> = {};
    for (const name of new Set(search.keys())) {
      const schema = declared?.[name];
      if (!schema) continue; // undeclared parameters are ignored, as most HTTP APIs do
      const values = search.getAll(name);
      query[name] = schema.type === 'array' ? values : values[0];
    }
    return this.run(validate, query, 'query parameter');
  }

  body(endpoint: EndpointDef, body: unknown): unknown {
    return this.run(this.validators.get(endpoint)?.body, body, 'body');
  }

  private run<T>(validate: ValidateFunction | undefined, value: T, where: Location): T {
    if (!validate || validate(value)) return value;
    const errors = validate.errors ?? [];
    const explained = errors.find((e) => typeof e.parentSchema?.['x-error'] === 'string');
    throw ServiceError.badRequest(describe(explained ?? errors[0], where));
  }
}

function describe(error: ErrorObject | undefined, where: Location): string {
  if (!error) return `invalid ${where}`;
  const field = error.instancePath.split('/').filter(Boolean).join('.');
  const custom: unknown = error.parentSchema?.['x-error'];
  switch (error.keyword) {
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      return `${where === 'body' ? 'body property' : where} ${field ? `${field}.` : ''}${missing} is required`;
    }
    case 'additionalProperties':
      return `unknown ${where === 'body' ? 'body property' : where} ${field ? `${field}.` : ''}${(error.params as { additionalProperty: string }).additionalProperty}`;
    case 'type':
      if (!field && where === 'body') return `body must be a JSON ${(error.params as { type: string }).type}`;
  }
  if (typeof custom === 'string') return custom;
  return `${where} ${field || '(root)'} ${error.message ?? 'is invalid'}`;
}
