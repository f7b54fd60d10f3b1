import { describe, expect, it } from '@jest/globals';
import { DEVICE_LIMITS, ErrorCode, ServiceError, TAG_RULE } from '@app/contracts';
import { makeCustomer } from '@app/testing';
import { makeDeviceContext } from '../../../test/factories.js';
import { ListDevicesCommand } from './list-devices.command.js';

const ctx = makeDeviceContext(makeCustomer());
const filterOf = (query: Record<string, unknown>) => ListDevicesCommand.create({ ctx, query }).filter;

function messageOf(query: Record<string, unknown>): string | undefined {
  try {
    ListDevicesCommand.create({ ctx, query });
  } catch (err) {
    if (ServiceError.is(err) && err.code === ErrorCode.BadRequest) return err.message;
    throw err;
  }
  return undefined;
}

describe('ListDevicesCommand', () => {
  it('takes the defaults, one more row than the page, and distinct tags', () => {
    expect(filterOf({})).toMatchObject({ customerId: ctx.customer!.id, tags: [], tagMode: 'any', limit: DEVICE_LIMITS.listDefaultLimit + 1, offset: 0 });
    expect(filterOf({ tag: 'a' }).tags).toEqual(['a']);
    expect(filterOf({ tag: ['b', 'a', 'b'], tag_mode: 'all' })).toMatchObject({ tags: ['b', 'a'], tagMode: 'all' });
    expect(filterOf({ q: '', status: 'withdrawn', has_keys: false })).toMatchObject({ prefix: undefined, status: 'withdrawn', hasKeys: false });
  });

  it('reads query texts as the values they name, as the gateway does', () => {
    expect(filterOf({ limit: '5', offset: ' 7 ', has_keys: 'true' })).toMatchObject({ limit: 6, offset: 7, hasKeys: true });
    expect(filterOf({ limit: null, offset: null })).toMatchObject({ limit: DEVICE_LIMITS.listDefaultLimit + 1, offset: 0 });
  });

  it('refuses what breaks the contract with the rule, the first broken one in query order', () => {
    expect(messageOf({ tag: Array.from({ length: DEVICE_LIMITS.maxQueryTags + 1 }, () => '-') })).toBe(`at most ${DEVICE_LIMITS.maxQueryTags} tag parameters`);
    expect(messageOf({ tag: ['ok', '-x'], tag_mode: 'none' })).toBe(TAG_RULE);
    expect(messageOf({ tag_mode: 'none', q: 'a b' })).toBe('tag_mode must be any or all');
    expect(messageOf({ q: 'x'.repeat(65) })).toBe('q must be at most 64 printable ASCII characters (0x21-0x7E)');
    expect(messageOf({ status: 'gone' })).toBe('status must be active or withdrawn');
    expect(messageOf({ has_keys: 'yes' })).toBe('has_keys must be true or false');
    for (const limit of [0, DEVICE_LIMITS.listMaxLimit + 1, 1.5, '', 'abc'])
      expect(messageOf({ limit })).toBe(`limit must be an integer from 1 to ${DEVICE_LIMITS.listMaxLimit}`);
    for (const offset of [-1, 1e300, 'x']) expect(messageOf({ offset })).toBe('offset must be an integer from 0 to 9007199254740991');
  });
});
