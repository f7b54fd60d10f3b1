/**
 * The oldest Node.js the service runs on: package.json's `engines.node` says the same
 * (`>=24.11.0`, the first Node 24 LTS release; a test keeps the two, the image and the pinned
 * `node` devDependency in agreement). See docs/operations.md, "Runtime".
 *
 * This module imports nothing, so an entry point can run the check before it loads any other
 * code: an older runtime then gets one clear line instead of a crash in some dependency.
 */
export const MINIMUM_NODE_VERSION = '24.11.0';

/** Why `version` (default: this process's) cannot run the service, or undefined when it can. */
export function unsupportedNodeReason(version: string = process.versions.node): string | undefined {
  if (compareVersions(version, MINIMUM_NODE_VERSION) >= 0) return undefined;
  return (
    `Node.js ${version} is not supported: the service needs Node.js ${MINIMUM_NODE_VERSION} or later. ` +
    `Start it with npm (npm start, npm run start:<app>, npm run cli), which runs the Node.js the project ` +
    `installs (node_modules/.bin/node), or install Node.js 24 LTS.`
  );
}

/** Ends the process (exit code 1) with the reason on standard error when this Node.js is too old. */
export function exitUnlessSupportedNode(): void {
  const reason = unsupportedNodeReason();
  if (reason === undefined) return;
  process.stderr.write(`${reason}\n`);
  process.exit(1);
}

/** Compares dotted release numbers (`24.11.0`, `v20.20.2`) numerically, part by part. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) =>
    v
      .replace(/^v/, '')
      .split(/[.-]/)
      .slice(0, 3)
      .map((p) => Number.parseInt(p, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) {
    const diff = (x[i] ?? 0) - (y[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}
