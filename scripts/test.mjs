// `npm test`: build, type check, lint, then unit, medium and end-to-end tests (both runtimes).
// Each step's output streams through; the first failure stops the run with its exit code.
import { spawnSync } from 'node:child_process';

const jest = ['node_modules/.bin/jest'];
const steps = [
  ['build', ['node', 'scripts/build.mjs']],
  ['typecheck', ['node_modules/.bin/tsc', '-p', 'tsconfig.json']],
  // The console against the API types generated from the OpenAPI document by the build step.
  ['typecheck (console)', ['node_modules/.bin/tsc', '-p', 'console/tsconfig.json']],
  ['lint', ['node_modules/.bin/eslint', '.']],
  ['format', ['node_modules/.bin/prettier', '--check', '.']],
  ['unit tests', [...jest, '--selectProjects', 'unit']],
  ['medium tests', [...jest, '--selectProjects', 'medium', '--runInBand']],
  ['end-to-end tests (standalone, distributed)', [...jest, '--selectProjects', 'e2e-standalone', 'e2e-distributed', '--runInBand']],
  ['browser tests (Chromium)', [...jest, '--selectProjects', 'browser', '--runInBand']],
];

// The runtime the whole run uses: the project's pinned Node.js (docs/operations.md, "Runtime").
console.log(`node ${process.version} (${process.execPath})`);

const env = { LOG_LEVEL: 'error', ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') };
for (const [name, [command, ...args]] of steps) {
  const started = Date.now();
  console.log(`\n=== ${name}: ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`=== ${name} failed after ${seconds}s (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
  console.log(`=== ${name} passed in ${seconds}s`);
}
