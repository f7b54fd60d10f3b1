/**
 * Set-Cookie lines of one response: a renewed session's cookies (set as soon as the renewal
 * happened, so that they reach the browser whatever the outcome) merged with the reply's own
 * (logout's clearing cookies, a switch's access cookie): the reply's win for the same name.
 */
export function mergeSetCookie(existing: number | string | string[] | undefined, added: readonly string[]): string[] {
  const before = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  const names = new Set(added.map(cookieName));
  return [...before.filter((line) => !names.has(cookieName(line))), ...added];
}

function cookieName(line: string): string {
  const eq = line.indexOf('=');
  return eq === -1 ? line.trim() : line.slice(0, eq).trim();
}
