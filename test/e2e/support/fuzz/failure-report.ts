import type { Violation } from './error-format.js';
import type { Outcome } from './raw-http.js';
import type { FuzzRequest } from './request-arbitraries.js';

/**
 * The failures of a fuzz run, grouped by operation and kind, each group with its count and the
 * first request that showed it, printed so that it can be sent again by hand or replayed from
 * the seed.
 */

export interface Position {
  /** 1-based number of the request in the run. */
  readonly index: number;
  /** Round of the operation that generated it (0-based). */
  readonly round: number;
}

interface Group {
  readonly operation: string;
  readonly kind: string;
  count: number;
  readonly example: { readonly request: FuzzRequest; readonly outcome: Outcome; readonly detail: string; readonly position: Position };
  /** For requests filed under another name (the HTTP layer): which operations generated them. */
  readonly sources: Map<string, number>;
}

export class FailureLog {
  private readonly groups = new Map<string, Group>();

  /** `secrets`: credentials to print as placeholders (token → `<name>`). */
  constructor(private readonly secrets: ReadonlyMap<string, string> = new Map()) {}

  get size(): number {
    return this.groups.size;
  }

  record(operation: string, violation: Violation, request: FuzzRequest, outcome: Outcome, position: Position): void {
    const key = `${operation}\u0000${violation.kind}`;
    let group = this.groups.get(key);
    if (!group) {
      group = { operation, kind: violation.kind, count: 0, example: { request, outcome, detail: violation.detail, position }, sources: new Map() };
      this.groups.set(key, group);
    }
    group.count++;
    group.sources.set(request.operation, (group.sources.get(request.operation) ?? 0) + 1);
  }

  /** Every group, most frequent first within each operation. */
  format(replay: (request: FuzzRequest, position: Position) => string): string {
    const groups = [...this.groups.values()].sort((a, b) => a.operation.localeCompare(b.operation) || b.count - a.count);
    return groups
      .map((g, i) => {
        const { request, outcome, detail, position } = g.example;
        const lines = [
          `${i + 1}. ${g.operation} — ${g.kind} — ${g.count}×`,
          `   request #${position.index} (${request.operation}, round ${position.round}): ${request.method} ${this.quote(request.target, 400)} from ${request.localAddress}`,
          `   headers: ${JSON.stringify(Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, abbreviate(this.redact(v), 120)])))}`,
          `   body: ${this.describeBody(request.body)}`,
          `   generated: ${request.choices.join('; ').slice(0, 800)}`,
          `   answer: ${describeOutcome(outcome)}`,
        ];
        if (detail) lines.push(`   why: ${detail}`);
        if (g.sources.size > 1 || !g.sources.has(g.operation)) {
          lines.push(`   from: ${[...g.sources].map(([op, n]) => `${op} ${n}`).join(', ')}`.slice(0, 600));
        }
        lines.push(`   replay: ${replay(request, position)}`);
        return lines.join('\n');
      })
      .join('\n');
  }

  private redact(text: string): string {
    let out = text;
    for (const [secret, name] of this.secrets) out = out.split(secret).join(name);
    return out;
  }

  private quote(text: string, max: number): string {
    const shown = JSON.stringify(text.length > max ? text.slice(0, max) : text);
    return text.length > max ? `${shown}… (${text.length} chars)` : shown;
  }

  private describeBody(body: Buffer | undefined): string {
    if (body === undefined) return '(none)';
    const text = body.toString('utf8');
    const clean = Buffer.from(text, 'utf8').equals(body);
    if (clean) return `${body.length} bytes ${this.redact(this.quote(text, 200))}`;
    return `${body.length} bytes, base64 ${body.subarray(0, 300).toString('base64')}${body.length > 300 ? '…' : ''}`;
  }
}

function abbreviate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

function describeOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'hang':
      return `none within ${outcome.elapsedMs} ms`;
    case 'broken':
      return outcome.error;
    case 'reply': {
      const { status, headers, body } = outcome.reply;
      return `${status} ${headers['content-type'] ?? '(no Content-Type)'} ${JSON.stringify(body.toString('utf8').slice(0, 300))}`;
    }
  }
}

/** Per-operation request counts on a few lines. */
export function formatCounts(counts: ReadonlyMap<string, number>): string {
  const entries = [...counts].map(([op, n]) => `${op} ${n}`);
  const lines: string[] = [];
  let line = '';
  for (const entry of entries) {
    if (line.length + entry.length > 150) {
      lines.push(line);
      line = '';
    }
    line += (line ? ' · ' : '') + entry;
  }
  if (line) lines.push(line);
  return lines.map((l) => `  ${l}`).join('\n');
}
