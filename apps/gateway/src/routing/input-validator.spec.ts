import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS, ServiceError } from '@app/contracts';
import { InputValidator } from './input-validator.js';

const byId = (id: string) => ENDPOINTS.find((e) => e.operationId === id)!;
const validator = new InputValidator(ENDPOINTS);

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(400);
    return (err as ServiceError).message;
  }
  throw new Error('expected a 400');
}

describe('InputValidator', () => {
  it('explains a log name that is not 128 hex characters', () => {
    expect(message(() => validator.params(byId('uploadLogFile'), { name: 'a'.repeat(127) }))).toBe('log file name must be exactly 128 hex characters');
    expect(validator.params(byId('uploadLogFile'), { name: 'A'.repeat(128) })).toEqual({ name: 'A'.repeat(128) });
  });

  it('coerces and bounds query integers, applying defaults', () => {
    const list = byId('listLogFiles');
    expect(validator.query(list, new URLSearchParams('limit=7'))).toMatchObject({ limit: 7, offset: 0 });
    expect(validator.query(list, new URLSearchParams(''))).toMatchObject({ limit: 50 });
    expect(message(() => validator.query(list, new URLSearchParams('limit=501')))).toBe('limit must be an integer from 1 to 500');
    expect(message(() => validator.query(list, new URLSearchParams('limit=abc')))).toBe('limit must be an integer from 1 to 500');
  });

  it('rejects unknown body properties and names missing ones', () => {
    const create = byId('createToken');
    expect(message(() => validator.body(create, { name: 'ci', bundle: 'full', extra: 1 }))).toBe('unknown body property extra');
    expect(message(() => validator.body(create, { bundle: 'full' }))).toBe('body property name is required');
    expect(message(() => validator.body(create, { name: 'ci', bundle: 'root' }))).toMatch(/^bundle must be one of/);
  });

  it('checks email format on login', () => {
    expect(message(() => validator.body(byId('login'), { email: 'not-an-email' }))).toBe('email must be a valid email address');
  });
});
