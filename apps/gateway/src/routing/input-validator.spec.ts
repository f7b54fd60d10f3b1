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

  it('refuses U+0000 and unpaired surrogates anywhere: path, query, body values and property names', () => {
    expect(message(() => validator.params(byId('adminGetCustomer'), { domain: '\u0000' }))).toBe(
      'path parameter domain must not contain U+0000 or unpaired surrogates',
    );
    expect(message(() => validator.query(byId('adminAudit'), new URLSearchParams('domain=%00')))).toBe(
      'query parameter domain must not contain U+0000 or unpaired surrogates',
    );
    expect(message(() => validator.body(byId('createToken'), { name: '\ud800', bundle: 'full' }))).toBe(
      'body property name must not contain U+0000 or unpaired surrogates',
    );
    expect(message(() => validator.body(byId('createToken'), { name: 'ok\udc00x', bundle: 'full' }))).toMatch(/^body property name must not contain/);
    // A surrogate pair is a character like any other.
    expect(validator.body(byId('createToken'), { name: 'ci \ud83d\ude80', bundle: 'full' })).toMatchObject({ name: 'ci \ud83d\ude80' });
  });

  it('refuses timestamps outside the storable range with the range as the reason', () => {
    const list = byId('listLogFiles');
    expect(message(() => validator.query(list, new URLSearchParams('uploaded_after=0000-01-01T00:00:00Z')))).toBe(
      'uploaded_after must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z',
    );
    expect(message(() => validator.query(list, new URLSearchParams('uploaded_after=9999-12-31T23:00:00-02:00')))).toMatch(/^uploaded_after must lie between/);
    expect(message(() => validator.query(list, new URLSearchParams('uploaded_after=yesterday')))).toBe('uploaded_after must be an RFC 3339 timestamp');
    expect(validator.query(list, new URLSearchParams('uploaded_after=0001-01-01T00:00:00Z'))).toMatchObject({ uploaded_after: '0001-01-01T00:00:00Z' });
  });
});
