// The baselines of bench:update-check: a bare node:http server answering every GET with a fixed
// JSON body (the body of a real update-check answer, given in BARE_BODY_FILE). With
// BARE_HEADERS_FILE (a JSON list of [name, value] pairs: the real answer's own headers) it also
// sends those and a fresh X-Request-Id each time, as the service does: the same bytes on the
// wire as the service's answer, with none of its work behind them.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const port = Number(process.env.BARE_PORT);
const body = readFileSync(process.env.BARE_BODY_FILE!);
const headers = process.env.BARE_HEADERS_FILE ? (JSON.parse(readFileSync(process.env.BARE_HEADERS_FILE, 'utf8')) as [string, string][]) : [];

createServer((req, res) => {
  res.statusCode = 200;
  if (headers.length > 0) {
    res.setHeader('X-Request-Id', randomUUID());
    for (const [name, value] of headers) res.setHeader(name, value);
  }
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}).listen(port, '127.0.0.1');
