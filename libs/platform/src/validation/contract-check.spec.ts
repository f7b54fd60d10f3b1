import { describe, expect, it } from '@jest/globals';
import { Type } from '@sinclair/typebox';
import { ErrorCode, ServiceError } from '@app/contracts';
import { contractCheck, customerIdOf, customerIdsOf } from './contract-check.js';

describe('contractCheck', () => {
  const name = contractCheck(Type.String({ pattern: '^[a-f]{3}$', 'x-error': 'name must be three letters a to f' }));
  const query = contractCheck(
    Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 5, 'x-error': 'limit must be an integer from 1 to 10' })) }),
    { coerce: true },
  );
  const body = contractCheck(Type.Object({ a: Type.Boolean() }, { additionalProperties: false }), { where: 'body property' });

  it("answers the valid value and refuses others with the schema's x-error", () => {
    expect(name('abc')).toBe('abc');
    for (const bad of ['abcd', '', undefined, 42]) {
      expect(() => name(bad)).toThrow(ServiceError);
      expect(() => name(bad)).toThrow('name must be three letters a to f');
    }
  });

  it('coerces and defaults a copy of an object, never the given one', () => {
    const given = { limit: '7' };
    expect(query(given)).toEqual({ limit: 7 });
    expect(given).toEqual({ limit: '7' });
    expect(query({})).toEqual({ limit: 5 });
    expect(() => query({ limit: '0' })).toThrow('limit must be an integer from 1 to 10');
  });

  it('names required and unknown properties like the gateway', () => {
    expect(() => body({})).toThrow('body property a is required');
    expect(() => body({ a: true, b: 1 })).toThrow('unknown body property b');
  });
});

describe('customerIdsOf', () => {
  it('lower-cases UUIDs in order and refuses the first that is none with 400', () => {
    expect(customerIdsOf(['AAAAAAAA-0000-4000-8000-000000000001'])).toEqual(['aaaaaaaa-0000-4000-8000-000000000001']);
    expect(customerIdsOf(undefined)).toEqual([]);
    try {
      customerIdsOf(['00000000-0000-4000-8000-000000000001', 'nope']);
      throw new Error('not refused');
    } catch (err) {
      expect(err).toMatchObject({ code: ErrorCode.BadRequest, message: 'customer id must be a UUID: nope' });
    }
    expect(customerIdOf(42)).toBeUndefined();
  });
});
