#!/usr/bin/env node
// Run after changing dependencies (`node scripts/lockfile-foreign-optionals.cjs`): the registry
// reachable here does not serve other platforms' optional binaries (e.g. @swc/core-darwin-arm64),
// so npm leaves them out of package-lock.json and `npm ci` then refuses the lockfile.
// Adds lockfile entries for optional per-platform packages the registry here does not serve,
// so `npm ci` accepts the lockfile; npm skips them on this platform (os/cpu mismatch).
const fs = require('fs');
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const pk = lock.packages;
const osOf = (n) =>
  /darwin/.test(n)
    ? ['darwin']
    : /win32/.test(n)
      ? ['win32']
      : /freebsd/.test(n)
        ? ['freebsd']
        : /android/.test(n)
          ? ['android']
          : /openharmony/.test(n)
            ? ['openharmony']
            : /wasm|wasi/.test(n)
              ? null
              : ['linux'];
const cpuOf = (n) =>
  /arm64|aarch64/.test(n)
    ? ['arm64']
    : /x64|x86_64/.test(n)
      ? ['x64']
      : /ia32/.test(n)
        ? ['ia32']
        : /arm/.test(n)
          ? ['arm']
          : /ppc64/.test(n)
            ? ['ppc64']
            : /s390x/.test(n)
              ? ['s390x']
              : /riscv64/.test(n)
                ? ['riscv64']
                : /loong64/.test(n)
                  ? ['loong64']
                  : /wasm|wasi/.test(n)
                    ? ['wasm32']
                    : null;
let added = 0;
for (const [path, entry] of Object.entries(pk)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies || {})) {
    const base = path ? path + '/node_modules/' : 'node_modules/';
    if (pk[base + name] || pk['node_modules/' + name]) continue;
    const version = String(range).replace(/^[\^~=]/, '');
    const e = { version, dev: entry.dev || undefined, optional: true };
    const os = osOf(name),
      cpu = cpuOf(name);
    if (os) e.os = os;
    if (cpu) e.cpu = cpu;
    pk['node_modules/' + name] = JSON.parse(JSON.stringify(e));
    added++;
  }
}
fs.writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log('added', added);
