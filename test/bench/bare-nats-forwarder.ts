// The distributed baseline of bench:update-check (d): the least a gateway that forwards each
// request over NATS can do. BARE_ROLE=forwarder: a bare node:http server that sends every GET
// as a NATS request (nats.js request(), its defaults) carrying the request's path and answers
// with the reply's bytes; BARE_ROLE=responder: a NATS subscriber in a queue group answering each
// request with a fixed JSON body (BARE_BODY_FILE, the body of a real update-check answer).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from '@nats-io/transport-node';

const SUBJECT = 'bare.update-check';
const nc = await connect({ servers: process.env.NATS_URL!, name: `bare-${process.env.BARE_ROLE}` });
const encoder = new TextEncoder();

if (process.env.BARE_ROLE === 'responder') {
  const body = readFileSync(process.env.BARE_BODY_FILE!);
  nc.subscribe(SUBJECT, {
    queue: 'bare',
    callback: (_err, msg) => {
      msg.respond(body);
    },
  });
} else {
  createServer((req, res) => {
    nc.request(SUBJECT, encoder.encode(req.url ?? '/'), { timeout: 5_000 }).then(
      (reply) => {
        res.statusCode = 200;
        res.setHeader('Content-Type', 'application/json');
        res.setHeader('Content-Length', reply.data.length);
        res.end(reply.data);
      },
      () => {
        res.statusCode = 503;
        res.end();
      },
    );
  }).listen(Number(process.env.BARE_PORT), '127.0.0.1');
}
process.on('SIGTERM', () => void nc.close().then(() => process.exit(0)));
