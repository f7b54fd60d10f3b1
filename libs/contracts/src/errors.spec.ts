import { describe, expect, it } from '@jest/globals';
import { ErrorCode, ServiceError } from '@app/contracts';

describe('ServiceError', () => {
  it('survives a transport round trip with code, message and headers', () => {
    const original = new ServiceError(ErrorCode.Unauthenticated, 'token revoked, expired or unknown', { 'WWW-Authenticate': 'Bearer realm="service"' });
    const copy = ServiceError.fromSerialized(JSON.parse(JSON.stringify(original)));
    expect(copy).toBeInstanceOf(ServiceError);
    expect(copy.status).toBe(401);
    expect(copy.message).toBe(original.message);
    expect(copy.headers).toEqual(original.headers);
  });

  it('turns anything unrecognised into an internal error without leaking it', () => {
    expect(ServiceError.fromSerialized({ code: 'nope', message: 'secret detail' }).code).toBe(ErrorCode.Internal);
    expect(ServiceError.fromSerialized('boom').message).toBe('internal error');
  });
});
