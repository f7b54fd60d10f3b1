import { UpdateMaintenanceRequest } from '@app/contracts';
import { contractCheck } from '@app/platform';
import type { MaintenanceRow } from '../../repositories/protection.repository.js';

const validBody = contractCheck(UpdateMaintenanceRequest, { where: 'body' });

/**
 * Maintenance on or off for `actor` (an administrator, or a restore acting for one);
 * `auditActor`: the audit entry's actor (the operator CLI names itself).
 */
export class SetMaintenanceCommand {
  private constructor(
    readonly value: MaintenanceRow,
    readonly actor: string,
    readonly auditActor: string,
  ) {}

  /** PUT /admin/maintenance, validated when built; an empty message means the default. */
  static create(input: { body: unknown; actor: string }): SetMaintenanceCommand {
    const body = validBody(input.body);
    return new SetMaintenanceCommand({ enabled: body.enabled, message: body.message?.trim() || null }, input.actor, `admin:${input.actor}`);
  }

  /** A setting the service itself puts (a restore, the operator CLI): `message` null is the default message. */
  static of(value: MaintenanceRow, actor: string, auditActor = `admin:${actor}`): SetMaintenanceCommand {
    return new SetMaintenanceCommand({ enabled: value.enabled, message: value.message }, actor, auditActor);
  }
}
