import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS } from '@app/contracts';
import { RouteTable } from './route-table.js';

/** The firmware paths with the real declarations: the upload path form versus the build-tag routes (docs/api.md "Builds"). */
describe('firmware routes', () => {
  const table = new RouteTable(ENDPOINTS);
  const id = '3f2b8c1e-0d4a-4c6e-9f1a-2b3c4d5e6f70';
  const operation = (method: string, path: string) => {
    const found = table.lookup(method, path);
    return found.kind === 'found' ? found.match.endpoint.operationId : found.kind;
  };

  it('a first segment that is a build id followed by `tags` is the tag route; otherwise the upload path form', () => {
    expect(operation('PUT', `/firmware/${id}/tags/beta`)).toBe('addFirmwareTag');
    expect(operation('DELETE', `/firmware/${id}/tags/beta`)).toBe('removeFirmwareTag');
    expect(operation('PUT', '/firmware/board/tags/beta')).toBe('uploadFirmwareByPath');
    expect(table.lookup('PUT', '/firmware/board/tags/beta')).toMatchObject({ match: { params: { hw_name: 'board', hw_version: 'tags', fw_name: 'beta' } } });
    expect(table.lookup('DELETE', '/firmware/board/tags/beta')).toEqual({ kind: 'method-not-allowed', allowed: ['PUT'], errorMode: 'text' });
  });

  it('every firmware path has its own route pattern (the request log counts them)', () => {
    expect(operation('PUT', '/firmware')).toBe('uploadFirmware');
    expect(operation('PUT', '/firmware/')).toBe('uploadFirmwareTrailingSlash');
    expect(operation('GET', '/firmware')).toBe('listFirmware');
    expect(operation('POST', '/firmware/parse')).toBe('parseFirmware');
    expect(operation('GET', `/firmware/${id}`)).toBe('getFirmware');
    expect(operation('GET', `/firmware/${id}/binary`)).toBe('downloadFirmwareBinary');
    expect(operation('GET', `/firmware/${id}/notes`)).toBe('downloadFirmwareNotes');
    expect(operation('GET', '/firmware/acme.example/board/rev1/main/1.0')).toBe('checkForUpdates');
    expect(operation('GET', '/firmware/acme.example/board/rev1/main/1.0/dev%2F1')).toBe('checkForDeviceUpdates');
    expect(table.lookup('GET', '/firmware/acme.example/board/rev1/main/1.0/dev%2F1%3Fx')).toMatchObject({ match: { params: { hwid: 'dev/1?x' } } });
  });
});
