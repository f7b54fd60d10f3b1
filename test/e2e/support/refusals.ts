import { request } from 'node:http';
import { connect } from 'node:net';

/**
 * Clients that go on sending after the gateway has refused them, as real clients do: what
 * they report is whether they read the answer (its status) or lost it to a reset (the error
 * code). Used by the end-to-end tests and by `npm run bench:refusals`.
 */
export type Outcome = { readonly status: number; readonly body: string } | { readonly error: string };

/** Sends `body` whole with its Content-Length, whatever the server answers meanwhile (Node's http client). */
export function sendWholeBody(url: string, method: string, headers: Record<string, string>, body: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(url, { method, agent: false, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
    req.end(body);
  });
}

/** A GET with `headerBytes` of request headers (Node's http client). */
export function sendLargeHeaders(url: string, headerBytes: number): Promise<Outcome> {
  const headers: Record<string, string> = {};
  const value = 'v'.repeat(1000);
  for (let i = 0; i * 1010 < headerBytes; i++) headers[`x-filler-${i}`] = value;
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
    req.end();
  });
}

/** Raw bytes over TCP: everything the server sends until it closes (for requests Node's client will not send). */
export function sendRaw(port: number, bytes: Buffer, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      socket.end();
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.on('error', reject);
    socket.setTimeout(15_000, () => socket.destroy(new Error(`no close within 15 s; received: ${Buffer.concat(chunks).toString('latin1').slice(0, 300)}`)));
  });
}

/** Tallies outcomes: `answered` counts those that read `status`. */
export function tally(outcomes: readonly Outcome[], status: number): { answered: number; tries: number; other: Record<string, number> } {
  const other: Record<string, number> = {};
  let answered = 0;
  for (const outcome of outcomes) {
    if ('status' in outcome && outcome.status === status) answered++;
    else {
      const key = 'status' in outcome ? String(outcome.status) : outcome.error;
      other[key] = (other[key] ?? 0) + 1;
    }
  }
  return { answered, tries: outcomes.length, other };
}
