/**
 * Whether a part of the service is up by a /status document: the rule of the /health page,
 * which the gateway renders with it and the page's script (console/src/health/) refreshes with
 * it. No imports, so the console's bundle takes it as it is.
 */
export function partIsUp(
  part: string,
  status: { readonly database: boolean; readonly object_store: boolean; readonly apps: Readonly<Record<string, string>> },
): boolean {
  if (part === 'gateway') return true;
  if (part === 'database') return status.database;
  if (part === 'object_store') return status.object_store;
  return status.apps[part] === 'up';
}
