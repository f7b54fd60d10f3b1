import { describe, expect, it } from '@jest/globals';
import { FIRMWARE_HANDLERS, firmwareControllers, firmwareRoleFromArgs, UPDATE_CHECK_PROVIDERS } from './firmware.module.js';
import { UpdateCheckResponder } from './update-check/update-check.responder.js';

describe('firmware roles', () => {
  it('--role=update-check runs the update-check handler only; the default runs everything', () => {
    expect(firmwareRoleFromArgs([])).toBe('all');
    expect(firmwareRoleFromArgs(['--role=update-check'])).toBe('update-check');
    expect(() => firmwareRoleFromArgs(['--role=uploads'])).toThrow('unknown firmware role "uploads"');
    expect(firmwareControllers('update-check').map((c) => c.name)).toEqual([]);
    expect(firmwareControllers('all').map((c) => c.name)).toEqual([
      'FirmwareController',
      'TagsController',
      'ObjectOwnershipController',
      'RolloutsController',
      'RolloutSteeringController',
      'UpdateSigningController',
      'FirmwareDataController',
    ]);
  });
});

describe('FIRMWARE_HANDLERS', () => {
  it('lists the update-check responder with the controllers, in both roles, and the role providers include it', () => {
    expect(FIRMWARE_HANDLERS.all.responders).toEqual([UpdateCheckResponder]);
    expect(FIRMWARE_HANDLERS['update-check'].responders).toEqual([UpdateCheckResponder]);
    expect(UPDATE_CHECK_PROVIDERS).toContain(UpdateCheckResponder);
  });
});
