// The baseline of bench:update-check: a bare node:http server answering every GET with a fixed
// JSON body (the body of a real update-check answer, given in BARE_BODY_FILE).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const port = Number(process.env.BARE_PORT);
const body = readFileSync(process.env.BARE_BODY_FILE!);

createServer((req, res) => {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}).listen(port, '127.0.0.1');
