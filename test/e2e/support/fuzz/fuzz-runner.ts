import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { FailureLog } from './failure-report.js';
import type { Operation } from './openapi-model.js';
import { send } from './raw-http.js';
import type { ReplyOracle } from './reply-oracle.js';
import { type FuzzContext, type FuzzRequest, requestArbitrary } from './request-arbitraries.js';

/**
 * The fuzz loop: operations in turn (round-robin, so each gets its share however long the
 * run), one request at a time, until the time budget or the round limit is spent. Every
 * failure is collected, none stops the run. Requests come from fast-check with a seed derived
 * from the run's seed, the operation id and the round, so one seed gives the same requests in
 * the same order (and an operation's requests do not depend on which others run).
 */

export interface FuzzOptions {
  readonly baseUrl: string;
  readonly operations: readonly Operation[];
  readonly context: FuzzContext;
  readonly oracle: ReplyOracle;
  readonly seed: number;
  readonly timeMs: number;
  readonly maxRounds: number;
  readonly requestTimeoutMs: number;
  readonly secrets: ReadonlyMap<string, string>;
}

export interface FuzzRun {
  readonly sent: number;
  readonly rounds: number;
  readonly elapsedMs: number;
  readonly perOperation: ReadonlyMap<string, number>;
  readonly failures: FailureLog;
}

/** Requests drawn together from one seed (fast-check varies its bias within a draw). */
const BATCH = 8;

export function derivedSeed(seed: number, operation: string, batch: number): number {
  return createHash('sha256').update(`${seed}:${operation}:${batch}`).digest().readInt32LE(0);
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzRun> {
  const started = Date.now();
  const deadline = started + options.timeMs;
  const arbitraries = new Map(options.operations.map((op) => [op.id, requestArbitrary(op, options.context)]));
  const batches = new Map<string, { batch: number; requests: FuzzRequest[] }>();
  const perOperation = new Map<string, number>(options.operations.map((op) => [op.id, 0]));
  const failures = new FailureLog(options.secrets);
  const next = (op: Operation, round: number): FuzzRequest => {
    const batch = Math.floor(round / BATCH);
    let drawn = batches.get(op.id);
    if (drawn?.batch !== batch) {
      drawn = { batch, requests: fc.sample(arbitraries.get(op.id)!, { seed: derivedSeed(options.seed, op.id, batch), numRuns: BATCH }) };
      batches.set(op.id, drawn);
    }
    return drawn.requests[round % BATCH];
  };
  let sent = 0;
  let round = 0;
  for (; round < options.maxRounds && Date.now() < deadline; round++) {
    for (const op of options.operations) {
      if (Date.now() >= deadline) break;
      const request = next(op, round);
      const outcome = await send(options.baseUrl, request, options.requestTimeoutMs).catch((err: Error) => {
        // node:http refused to write it: a generator bug, not a finding.
        throw new Error(
          `request #${sent + 1} (${op.id}, round ${round}, seed ${options.seed}) could not be sent: ${err.message}; ${JSON.stringify(request.target.slice(0, 300))}`,
        );
      });
      sent++;
      perOperation.set(op.id, (perOperation.get(op.id) ?? 0) + 1);
      const judgement = options.oracle.judge(request, outcome);
      for (const violation of judgement.violations) failures.record(judgement.operation, violation, request, outcome, { index: sent, round });
    }
  }
  return { sent, rounds: round, elapsedMs: Date.now() - started, perOperation, failures };
}
