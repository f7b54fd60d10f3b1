/** A backup, verify or restore run's page in the console. */
export function runPath(id: string): string {
  return `/console/admin/backups/${encodeURIComponent(id)}`;
}
