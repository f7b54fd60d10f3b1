import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contract, type OpenApiDoc } from '../support/contract.js';
import { formatCounts } from '../support/fuzz/failure-report.js';
import { FRAMING_CASES, framingViolations } from '../support/fuzz/framing-cases.js';
import { createFuzzFixtures, type FuzzFixtures } from '../support/fuzz/fuzz-fixtures.js';
import { runFuzz } from '../support/fuzz/fuzz-runner.js';
import { OpenApiRouter, type OpenApiDocument, operationsOf } from '../support/fuzz/openapi-model.js';
import { rawExchange } from '../support/fuzz/raw-http.js';
import { ReplyOracle } from '../support/fuzz/reply-oracle.js';
import { startRuntime, type Runtime } from '../support/runtime.js';

/**
 * Property-based fuzzing of the whole HTTP API from its own /openapi.json (fast-check): every
 * operation gets requests with valid, boundary, wrong-type and hostile values, bad encodings
 * and odd credentials, and every answer must come within the time limit, be no 5xx, carry a
 * declared status, be in the contract's error format and match its declared schema. The run is
 * bounded in time and collects every kind of failure before reporting them together.
 *
 * Environment: FUZZ_SEED (default random; printed), FUZZ_TIME_MS (60000), FUZZ_ROUNDS (no
 * limit: with a seed, replays the first N rounds exactly), FUZZ_OPS (a regular expression of
 * operationIds), FUZZ_REQUEST_TIMEOUT_MS (10000).
 */

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomInt(2 ** 31);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 60_000);
const MAX_ROUNDS = process.env.FUZZ_ROUNDS ? Number(process.env.FUZZ_ROUNDS) : Number.POSITIVE_INFINITY;
const ONLY = process.env.FUZZ_OPS ? new RegExp(process.env.FUZZ_OPS) : null;
const REQUEST_TIMEOUT_MS = Number(process.env.FUZZ_REQUEST_TIMEOUT_MS ?? 10_000);
const THIS_FILE = 'test/e2e/standalone/openapi-fuzz.e2e-spec.ts';

function replayCommand(env: Record<string, string | number>): string {
  const vars = Object.entries(env)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? `'${v}'` : v}`)
    .join(' ');
  return `${vars} NODE_OPTIONS=--experimental-vm-modules npx jest --selectProjects e2e-standalone --runInBand ${THIS_FILE}`;
}

describe('the HTTP API under requests generated from /openapi.json', () => {
  let rt: Runtime;
  let fixtures: FuzzFixtures;
  let doc: OpenApiDocument & OpenApiDoc;

  beforeAll(async () => {
    rt = await startRuntime();
    fixtures = await createFuzzFixtures(rt);
    const reply = await rt.http.get('/openapi.json');
    expect(reply.status).toBe(200);
    doc = reply.json();
  }, 60_000);
  afterAll(async () => {
    await rt?.stop();
  });

  it('every operation: an answer within the time limit, no 5xx, a declared status, the contract error format and schema', async () => {
    if (!Number.isSafeInteger(SEED)) throw new Error(`FUZZ_SEED must be an integer, got ${process.env.FUZZ_SEED}`);
    const all = operationsOf(doc);
    const operations = all.filter((op) => !ONLY || ONLY.test(op.id));
    expect(operations.length).toBeGreaterThan(0);
    const run = await runFuzz({
      baseUrl: rt.baseUrl,
      operations,
      context: fixtures,
      oracle: new ReplyOracle(new OpenApiRouter(all), new Contract(doc), REQUEST_TIMEOUT_MS),
      seed: SEED,
      timeMs: TIME_MS,
      maxRounds: MAX_ROUNDS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      secrets: fixtures.secrets,
    });
    process.stdout.write(
      `openapi fuzz: ${run.sent} requests to ${operations.length} operations in ${run.rounds} rounds, ${(run.elapsedMs / 1000).toFixed(1)} s; seed ${SEED}; ` +
        `${run.failures.size} distinct failures\n${formatCounts(run.perOperation)}\n`,
    );
    if (run.failures.size > 0) {
      const list = run.failures.format((request, position) =>
        replayCommand({ FUZZ_SEED: SEED, FUZZ_OPS: `^${request.operation}$`, FUZZ_ROUNDS: position.round + 1 }),
      );
      throw new Error(
        `${run.failures.size} distinct failures (operation — kind — count) in ${run.sent} requests; seed ${SEED}\n` +
          `replay the whole run: ${replayCommand({ FUZZ_SEED: SEED, FUZZ_ROUNDS: run.rounds })}\n\n${list}`,
      );
    }
  }, 110_000);

  describe('broken HTTP framing on a raw connection', () => {
    it.each(FRAMING_CASES.map((c) => [c.label, c] as const))(
      '%s: answered with a status line, a problem+json body and Connection: close',
      async (_label, framing) => {
        const exchange = await rawExchange(rt.baseUrl, framing.chunks, { endAfter: framing.endAfter, timeoutMs: 5_000 });
        expect(framingViolations(exchange)).toEqual([]);
      },
      15_000,
    );
  });
});
