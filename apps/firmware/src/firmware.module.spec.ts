import { describe, expect, it } from '@jest/globals';
import { firmwareControllers, firmwareRoleFromArgs } from './firmware.module.js';

describe('firmware roles', () => {
  it('--role=update-check runs the update-check handler only; the default runs everything', () => {
    expect(firmwareRoleFromArgs([])).toBe('all');
    expect(firmwareRoleFromArgs(['--role=update-check'])).toBe('update-check');
    expect(() => firmwareRoleFromArgs(['--role=uploads'])).toThrow('unknown firmware role "uploads"');
    expect(firmwareControllers('update-check').map((c) => c.name)).toEqual([]);
    expect(firmwareControllers('all').map((c) => c.name)).toEqual(['FirmwareController', 'TagsController']);
  });
});
