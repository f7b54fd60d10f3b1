import { describe, expect, it } from '@jest/globals';
import { ErrorCode, LOGDATA_MAX_BYTES, LOGDATA_SANDBOX_MAX_BYTES, ServiceError } from '@app/contracts';
import { makeCustomer } from '@app/testing';
import { makeLogName, makeStagedFile } from '../../../test/factories.js';
import { DEFAULT_LOG_CONTENT_TYPE, UploadLogFileCommand } from './upload-log-file.command.js';

function codeOf(fn: () => unknown): ErrorCode | undefined {
  try {
    fn();
  } catch (err) {
    return ServiceError.is(err) ? err.code : undefined;
  }
  return undefined;
}

describe('UploadLogFileCommand.create', () => {
  const customer = makeCustomer();

  it('lower-cases the name and the checksum and keeps the staged key', () => {
    const file = makeStagedFile('hello');
    const name = makeLogName();
    const command = UploadLogFileCommand.create({
      customer,
      name: name.toUpperCase(),
      actor: 'user:u1',
      file: { ...file, sha256: file.sha256.toUpperCase() },
    });
    expect(command).toMatchObject({ customerId: customer.id, name, uploadedBy: 'user:u1', contentType: 'text/plain' });
    expect(command.staged).toEqual({ ...file, contentType: 'text/plain' });
  });

  it('defaults the content type to application/octet-stream, else takes the request header', () => {
    const file = makeStagedFile('x', { contentType: '' });
    expect(UploadLogFileCommand.create({ customer, name: makeLogName(), actor: 'token:t', file }).contentType).toBe(DEFAULT_LOG_CONTENT_TYPE);
    expect(UploadLogFileCommand.create({ customer, name: makeLogName(), actor: 'token:t', file, contentType: 'text/csv' }).contentType).toBe('text/csv');
  });

  it('refuses a bad name, a missing body or a bad checksum with 400', () => {
    const file = makeStagedFile('x');
    expect(codeOf(() => UploadLogFileCommand.create({ customer, name: 'abc', actor: 'token:t', file }))).toBe(ErrorCode.BadRequest);
    expect(codeOf(() => UploadLogFileCommand.create({ customer, name: makeLogName(), actor: 'token:t', file: undefined }))).toBe(ErrorCode.BadRequest);
    expect(codeOf(() => UploadLogFileCommand.create({ customer, name: makeLogName(), actor: 'token:t', file: { ...file, sha256: 'zz' } }))).toBe(
      ErrorCode.BadRequest,
    );
    expect(codeOf(() => UploadLogFileCommand.create({ customer, name: makeLogName(), actor: 'token:t', file: { ...file, sizeBytes: -1 } }))).toBe(
      ErrorCode.BadRequest,
    );
  });

  it('enforces the size limits again (16 MiB, 256 KiB in the sandbox) with 413', () => {
    const big = makeStagedFile('x', { sizeBytes: LOGDATA_MAX_BYTES + 1 });
    expect(codeOf(() => UploadLogFileCommand.create({ customer, name: makeLogName(), actor: 'token:t', file: big }))).toBe(ErrorCode.PayloadTooLarge);
    const atLimit = makeStagedFile('x', { sizeBytes: LOGDATA_MAX_BYTES });
    expect(UploadLogFileCommand.create({ customer, name: makeLogName(), actor: 'token:t', file: atLimit }).staged.sizeBytes).toBe(LOGDATA_MAX_BYTES);
    const sandbox = makeCustomer({ isSandbox: true });
    const sandboxBig = makeStagedFile('x', { sizeBytes: LOGDATA_SANDBOX_MAX_BYTES + 1 });
    expect(codeOf(() => UploadLogFileCommand.create({ customer: sandbox, name: makeLogName(), actor: 'token:t', file: sandboxBig }))).toBe(
      ErrorCode.PayloadTooLarge,
    );
  });
});
