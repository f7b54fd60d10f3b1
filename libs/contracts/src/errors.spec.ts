import { describe, expect, it } from '@jest/globals';
import { ErrorCode, ServiceError, TransportError, TransportErrorCode } from '@app/contracts';

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

describe('TransportError', () => {
  it('tells a request nobody received from one that was not answered, by code', () => {
    const notReceived = new TransportError(TransportErrorCode.NoReceiver, 'logdata');
    const notAnswered = new TransportError(TransportErrorCode.NoAnswer, 'logdata');
    expect(notReceived).toMatchObject({ code: ErrorCode.Unavailable, message: 'logdata unavailable' });
    expect(notAnswered).toMatchObject({ code: ErrorCode.Unavailable, message: 'logdata did not answer in time' });
    expect(TransportError.notReceived(notReceived)).toBe(true);
    expect(TransportError.notReceived(notAnswered)).toBe(false);
  });

  it("does not survive a transport: a forwarded one says nothing about the sender's request", () => {
    const forwarded = ServiceError.fromSerialized(JSON.parse(JSON.stringify(new TransportError(TransportErrorCode.NoReceiver, 'registry'))));
    expect(forwarded).toMatchObject({ code: ErrorCode.Unavailable, message: 'registry unavailable' });
    expect(TransportError.notReceived(forwarded)).toBe(false);
    expect(TransportError.notReceived(ServiceError.unavailable('registry unavailable'))).toBe(false);
  });
});
