/**
 * What a firmware process serves:
 * - `all` (default): builds, tags API, counts and the update check;
 * - `update-check`: only the public update check (plus health), for a deployment that scales
 *   with device traffic (`npm run start:firmware-update-check`, k8s/firmware-update-check.yaml).
 * Both answer `firmware.update-check` in the same NATS queue group `firmware`, so each check
 * is answered once, by any of them.
 *
 * Apart from the module so the entry point can name its process (tracing starts before the
 * module and its dependencies are loaded).
 */
export type FirmwareRole = 'all' | 'update-check';
export const FIRMWARE_ROLES: readonly FirmwareRole[] = ['all', 'update-check'];

/** `--role=<role>` among the process arguments (default `all`). */
export function firmwareRoleFromArgs(args: readonly string[]): FirmwareRole {
  const given = args.find((arg) => arg.startsWith('--role='))?.slice('--role='.length);
  if (given === undefined) return 'all';
  if (!(FIRMWARE_ROLES as readonly string[]).includes(given)) throw new Error(`unknown firmware role "${given}" (one of ${FIRMWARE_ROLES.join(', ')})`);
  return given as FirmwareRole;
}

/** The service name a firmware process reports in traces: the update-check role apart from the rest. */
export function firmwareServiceName(role: FirmwareRole): string {
  return role === 'update-check' ? 'firmware-update-check' : 'firmware';
}
