// The baseline of bench:logdata: a bare node:http server that streams each PUT body to disk
// while hashing it with SHA-256, the minimum work the service's upload path must also do.
// BARE_FSYNC=1: each file is also flushed to disk before the answer, as the service makes an
// upload durable before it acknowledges it.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

const dir = process.env.BARE_DIR!;
const port = Number(process.env.BARE_PORT);
const durable = process.env.BARE_FSYNC === '1';
let n = 0;

createServer(async (req, res) => {
  if (req.method !== 'PUT') {
    res.statusCode = req.url === '/healthz' ? 200 : 404;
    res.end();
    return;
  }
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk, _enc, cb) {
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  await pipeline(req, tap, createWriteStream(join(dir, `upload-${n++}`), { flush: durable }));
  res.statusCode = 201;
  res.end(hash.digest('hex'));
}).listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile
