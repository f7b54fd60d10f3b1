import { describe, expect, it } from '@jest/globals';
import { asCustomerId, ServiceError } from '@app/contracts';
import { ListBuildsCommand } from '../list-builds/list-builds.command.js';
import { UpdateBuildCommand } from './update-build.command.js';

const customer = { id: asCustomerId('00000000-0000-4000-8000-000000000001'), domain: 'c.example', isSandbox: false };

describe('UpdateBuildCommand.create', () => {
  const create = (body: unknown, ifMatch?: string) => UpdateBuildCommand.create({ customer, id: 'b1', body, ifMatch });

  it('takes status, tag_filter_disabled and tags (deduplicated) and the If-Match header', () => {
    expect(create({ status: 'withdrawn', tag_filter_disabled: true, tags: ['b', 'a', 'b'] }, ' W/"r3" ')).toMatchObject({
      customerId: customer.id,
      id: 'b1',
      changes: { status: 'withdrawn', tagFilterDisabled: true, tags: ['b', 'a'] },
      ifMatch: 'W/"r3"',
    });
    expect(create({}).ifMatch).toBeNull();
  });

  it("refuses other bodies with 400 and the contract's messages", () => {
    expect(() => create([])).toThrow('body must be a JSON object');
    expect(() => create([])).toThrow(expect.objectContaining({ reason: 'invalid_request' }));
    expect(() => create({ color: 'red' })).toThrow('unknown body property color');
    expect(() => create({ status: 'gone' })).toThrow('status must be active or withdrawn');
    expect(() => create({ tags: ['no spaces'] })).toThrow(ServiceError);
  });
});

describe('ListBuildsCommand.create', () => {
  it('applies the contract defaults (limit 100, offset 0, newest first) and coerces query strings', () => {
    expect(ListBuildsCommand.create({ customer, query: {} })).toMatchObject({ limit: 100, offset: 0, order: 'desc' });
    expect(ListBuildsCommand.create({ customer, query: { limit: '5', general: 'true', order: 'asc' } })).toMatchObject({
      limit: 5,
      order: 'asc',
      filter: { general: true },
    });
  });

  it('refuses what the contract refuses, with its messages', () => {
    expect(() => ListBuildsCommand.create({ customer, query: { limit: 501 } })).toThrow('limit must be an integer from 1 to 500');
    expect(() => ListBuildsCommand.create({ customer, query: { offset: -1 } })).toThrow('offset must be an integer from 0 to 9007199254740991');
    expect(() => ListBuildsCommand.create({ customer, query: { fw_type: 'XFI' } })).toThrow('fw_type must be AFI, EFI or MFI');
    expect(() => ListBuildsCommand.create({ customer, query: { order: 'up' } })).toThrow('order must be asc or desc');
  });
});
