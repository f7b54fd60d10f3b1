// `npm run bench:async-context`: what one AsyncLocalStorage costs every promise of a process.
//
// The request id travels explicitly (ctx.requestId, JsonLogger.forRequest) because on Node 20
// a single AsyncLocalStorage.run put a promise hook on every promise of the process for good.
// Node 24 keeps async context in the promise itself (AsyncContextFrame) instead. This bench
// runs the same promise-heavy loop in fresh processes with and without an AsyncLocalStorage
// in use, alternating, and prints CPU nanoseconds per iteration and the ratio.
// BENCH_COMPARE_NODE=/path/to/node also runs the rounds on that Node.js (e.g. /usr/bin/node).
import { execFileSync } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';

const ITERATIONS = 2_000_000;
const ROUNDS = 5;

async function step(i: number): Promise<number> {
  return (await Promise.resolve(i)) + 1;
}

async function loop(): Promise<number> {
  let sum = 0;
  for (let i = 0; i < ITERATIONS; i++) sum += await step(i);
  return sum;
}

/**
 * In a child: CPU ns per iteration (two awaited promises each), after a warm-up. CPU time, not
 * wall time, so that other work on a shared machine disturbs the figure less.
 */
async function child(mode: string): Promise<void> {
  const run = async () => {
    await loop();
    const started = process.cpuUsage();
    await loop();
    const used = process.cpuUsage(started);
    return ((used.user + used.system) * 1000) / ITERATIONS;
  };
  const ns = mode === 'als' ? await new AsyncLocalStorage<{ requestId: string }>().run({ requestId: 'x' }, run) : await run();
  process.stdout.write(`${ns}\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(node: string): { plain: number; als: number } {
  const script = fileURLToPath(import.meta.url);
  const plain: number[] = [];
  const als: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [mode, into] of round % 2 === 0
      ? ([
          ['plain', plain],
          ['als', als],
        ] as const)
      : ([
          ['als', als],
          ['plain', plain],
        ] as const)) {
      into.push(Number(execFileSync(node, [script, 'child', mode], { encoding: 'utf8' }).trim()));
    }
  }
  return { plain: median(plain), als: median(als) };
}

if (process.argv[2] === 'child') {
  await child(process.argv[3]);
} else {
  const nodes = [process.execPath, ...(process.env.BENCH_COMPARE_NODE ? [process.env.BENCH_COMPARE_NODE] : [])];
  console.log(`async context: ${ITERATIONS.toLocaleString('en')} iterations of two awaited promises, median of ${ROUNDS} alternating rounds`);
  for (const node of nodes) {
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    const { plain, als } = measure(node);
    console.log(
      `node ${version}: plain ${plain.toFixed(1)} ns, with AsyncLocalStorage ${als.toFixed(1)} ns of CPU per iteration (x${(als / plain).toFixed(2)})`,
    );
  }
}
