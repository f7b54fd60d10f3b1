import { describe, expect, it } from '@jest/globals';
import {
  allCatalogedErrors,
  CommonErrors,
  defineErrors,
  ENDPOINTS,
  ErrorCode,
  declaredErrorsOf,
  GatewayErrors,
  LogdataErrors,
  ServiceError,
} from '@app/contracts';

describe('error catalogs', () => {
  it('build a ServiceError with the category, the text written once and the code as reason', () => {
    const error = LogdataErrors.log_file_too_large({ maxBytes: 10 });
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: ErrorCode.PayloadTooLarge, message: 'log file larger than 10 bytes', reason: 'log_file_too_large', status: 413 });
    expect({ ...LogdataErrors.log_file_too_large }).toMatchObject({
      code: 'log_file_too_large',
      domain: 'logdata',
      status: 413,
      pattern: 'log file larger than {maxBytes} bytes',
    });
    expect(LogdataErrors.log_file_too_large.is(error)).toBe(true);
    expect(LogdataErrors.log_file_conflict.is(error)).toBe(false);
  });

  it('keep the headers of the entry and of the raise', () => {
    expect(CommonErrors.unauthenticated().headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="service"' });
    expect(CommonErrors.rate_limited({ perMinute: 5 }, { 'Retry-After': '7' })).toMatchObject({
      message: 'too many requests from this address (at most 5 per minute)',
      headers: { 'Retry-After': '7' },
    });
  });

  it('define every code once, in snake_case, across all catalogs', () => {
    const codes = allCatalogedErrors().map((error) => error.code);
    expect(codes).toEqual(expect.arrayContaining([GatewayErrors.invalid_http.code, CommonErrors.internal.code, LogdataErrors.log_file_not_found.code]));
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/);
    expect(() => defineErrors('other', { log_file_not_found: { category: ErrorCode.NotFound, message: 'again' } })).toThrow(
      'error code log_file_not_found is defined twice: in the logdata and the other catalog',
    );
    expect(() => defineErrors('other', { NotSnake: { category: ErrorCode.NotFound, message: 'x' } })).toThrow('not snake_case');
  });

  it('are what endpoints list: every declared error is a registered catalog entry', () => {
    const registered = new Set(allCatalogedErrors().map((error) => error.code));
    for (const endpoint of ENDPOINTS) for (const error of declaredErrorsOf(endpoint)) expect(registered.has(error.code)).toBe(true);
  });
});

describe('a catalog error across the bus', () => {
  it('keeps its code', () => {
    const copy = ServiceError.fromSerialized(JSON.parse(JSON.stringify(LogdataErrors.log_file_conflict())));
    expect(copy).toMatchObject({ code: ErrorCode.Conflict, reason: 'log_file_conflict', message: 'log file already exists with different content' });
  });

  it('becomes internal with a code no catalog defines, or one of another category', () => {
    for (const reason of ['no_such_code', 'log_file_not_found']) {
      const copy = ServiceError.fromSerialized({ code: ErrorCode.Conflict, message: 'secret detail', reason });
      expect(copy).toMatchObject({ code: ErrorCode.Internal, reason: 'internal', message: 'internal error' });
    }
  });

  it('of a domain without a catalog yet carries its category as code', () => {
    const copy = ServiceError.fromSerialized(JSON.parse(JSON.stringify(ServiceError.notFound('build not found'))));
    expect(copy).toMatchObject({ code: ErrorCode.NotFound, reason: 'not_found' });
  });
});
