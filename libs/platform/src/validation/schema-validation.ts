import { Ajv, type ErrorObject, type Format, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { CommonErrors, INSTANT_RANGE_RULE, isStorableInstant, STORABLE_TEXT_RULE, unstorableTextAt } from '@app/contracts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/**
 * The one schema validation of the service: the gateway checks every endpoint's path, query
 * and JSON body with it, the apps their message payloads (contractCheck), so a value passes
 * in one place exactly when it passes in the other. Two rules hold for every schema, declared
 * here once: no string (or property name) may hold U+0000 or an unpaired surrogate, and a
 * `date-time` or `date` must lie in the storable range (libs/contracts storable.ts).
 */
function schemaAjv(coerceTypes: boolean): Ajv {
  const ajv = addFormats(new Ajv({ coerceTypes, useDefaults: true, allErrors: false, verbose: true, strict: false }));
  for (const name of ['date-time', 'date'] as const) {
    const base = ajv.formats[name] as Format | undefined;
    const syntax = typeof base === 'object' && !(base instanceof RegExp) ? (base.validate as (value: string) => boolean) : undefined;
    if (!syntax) throw new Error(`ajv-formats changed: format ${name} is no longer a validate function`);
    const instant = name === 'date' ? (value: string) => Date.parse(`${value}T00:00:00Z`) : (value: string) => Date.parse(value);
    ajv.addFormat(name, { type: 'string', validate: (value: string) => syntax(value) && isStorableInstant(instant(value)) });
  }
  return ajv;
}

/** Strings coerced to the schema's types, defaults applied (query strings and path parameters). */
export const coercingAjv = schemaAjv(true);
/** Types as sent, defaults applied (JSON bodies, message payloads). */
export const exactAjv = schemaAjv(false);

/**
 * `value` when `validate` accepts it and it holds only storable text; otherwise the 400 that
 * explains why. `where` names the place: `body` (whose members are "body property"), `path
 * parameter`, `query parameter`, or any noun for a payload.
 */
export function validatedValue<T>(validate: ValidateFunction | undefined, value: T, where: string): T {
  if (validate && !validate(value)) {
    const errors = validate.errors ?? [];
    const explained = errors.find((e) => typeof xError(e) === 'string');
    throw CommonErrors.invalid_request({ detail: describe(explained ?? errors[0], where) });
  }
  const unstorable = unstorableTextAt(value);
  if (unstorable !== undefined)
    throw CommonErrors.invalid_request({ detail: `${unstorable ? `${member(where)} ${unstorable}` : where} ${STORABLE_TEXT_RULE}` });
  return value;
}

function member(where: string): string {
  return where === 'body' ? 'body property' : where;
}

function xError(error: ErrorObject | undefined): unknown {
  return error?.parentSchema?.['x-error'];
}

function describe(error: ErrorObject | undefined, where: string): string {
  if (!error) return `invalid ${where}`;
  const field = error.instancePath.split('/').filter(Boolean).join('.');
  switch (error.keyword) {
    case 'required':
      return `${member(where)} ${field ? `${field}.` : ''}${(error.params as { missingProperty: string }).missingProperty} is required`;
    case 'additionalProperties':
      return `unknown ${member(where)} ${field ? `${field}.` : ''}${(error.params as { additionalProperty: string }).additionalProperty}`;
    case 'type':
      if (!field && where === 'body') return `body must be a JSON ${(error.params as { type: string }).type}`;
      break;
    case 'format': {
      // A date in the right syntax but outside the storable range gets the range as its reason.
      const format = (error.params as { format: string }).format;
      if ((format === 'date-time' || format === 'date') && typeof error.data === 'string' && !Number.isNaN(Date.parse(error.data)))
        return `${field || where} ${INSTANT_RANGE_RULE}`;
      break;
    }
  }
  const custom = xError(error);
  if (typeof custom === 'string') return custom;
  return `${where} ${field || '(root)'} ${error.message ?? 'is invalid'}`;
}
