// `npm test`: build, type check, lint, then unit, medium and end-to-end tests (both runtimes).
//
// The steps run in stages; within a stage, lanes run at the same time (each lane's steps one
// after the other), so the checks and the test suites share the machine's cores instead of
// waiting for each other: the end-to-end suite in the standalone runtime runs the service in
// the test process itself, one thread, and is most of the run. Lanes never share a server:
// the distributed end-to-end stack has its own database, Redis database and NATS server, the
// medium tests their own databases and queues. A line of a lane running beside others is
// prefixed with its step's name. The first failure stops the run with its exit code.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const jest = ['node_modules/.bin/jest'];
const step = (name, command) => ({ name, command });
const lane = (...steps) => steps;
const stages = [
  [lane(step('build', ['node', 'scripts/build.mjs']))],
  [
    lane(step('typecheck', ['node_modules/.bin/tsc', '-p', 'tsconfig.json'])),
    // The console against the API types generated from the OpenAPI document by the build step.
    lane(step('typecheck (console)', ['node_modules/.bin/tsc', '-p', 'console/tsconfig.json'])),
    lane(step('lint', ['node_modules/.bin/eslint', '.'])),
    lane(step('format', ['node_modules/.bin/prettier', '--check', '.'])),
    lane(step('unit tests', [...jest, '--selectProjects', 'unit'])),
  ],
  [
    lane(
      step('end-to-end tests (standalone, shard 1 of 2)', [...jest, '--selectProjects', 'e2e-standalone', '--runInBand', '--shard=1/2']),
      step('medium tests', [...jest, '--selectProjects', 'medium', '--runInBand']),
    ),
    lane(
      step('end-to-end tests (standalone, shard 2 of 2)', [...jest, '--selectProjects', 'e2e-standalone', '--runInBand', '--shard=2/2']),
      step('end-to-end tests (distributed)', [...jest, '--selectProjects', 'e2e-distributed', '--runInBand']),
    ),
  ],
  [lane(step('browser tests (Chromium)', [...jest, '--selectProjects', 'browser', '--runInBand']))],
];

// The runtime the whole run uses: the project's pinned Node.js (docs/operations.md, "Runtime").
console.log(`node ${process.version} (${process.execPath})`);

const env = { LOG_LEVEL: 'error', ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') };
const running = new Set();

/** Runs one step; its output streams through (prefixed when other lanes run beside it). Resolves with its exit status. */
function runStep({ name, command: [command, ...args] }, prefixed) {
  const started = Date.now();
  console.log(`\n=== ${name}: ${[command, ...args].join(' ')}`);
  const child = spawn(command, args, { stdio: ['ignore', prefixed ? 'pipe' : 'inherit', prefixed ? 'pipe' : 'inherit'], env });
  running.add(child);
  if (prefixed) {
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      createInterface({ input: stream }).on('line', (line) => out.write(`[${name}] ${line}\n`));
    }
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (code === 0) console.log(`=== ${name} passed in ${seconds}s`);
      else console.error(`=== ${name} failed after ${seconds}s (exit ${code ?? signal})`);
      resolve(code ?? 1);
    });
  });
}

function fail(status) {
  for (const child of running) child.kill('SIGTERM');
  process.exit(status);
}

for (const stage of stages) {
  const prefixed = stage.length > 1;
  await Promise.all(
    stage.map(async (steps) => {
      for (const s of steps) {
        const status = await runStep(s, prefixed);
        if (status !== 0) fail(status);
      }
    }),
  );
}
