import { ServiceError } from '@app/contracts';
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/**
 * A schema of libs/contracts compiled once, as a check: answers the value, typed, or throws
 * the 400 naming the rule (the failing schema's `x-error`, the message the gateway answers for
 * the same value). Commands check again what the gateway checked because not every caller is
 * the gateway.
 */
export function compileCheck<T extends TSchema>(schema: T): (value: unknown) => Static<T> {
  const compiled = TypeCompiler.Compile(schema);
  return (value) => {
    if (compiled.Check(value)) return value;
    const error = compiled.Errors(value).First();
    const rule = (error?.schema as Record<string, unknown> | undefined)?.['x-error'];
    throw ServiceError.badRequest(typeof rule === 'string' ? rule : `${error?.path || 'value'} ${error?.message ?? 'is invalid'}`);
  };
}
