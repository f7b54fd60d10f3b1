import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { endAtTurnEnd } from './end-of-turn.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((_req, res) => handler(res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('endAtTurnEnd', () => {
  it('ends the response in the check phase of the same turn, with its body and headers', async () => {
    const seen: string[] = [];
    const url = await serve((res) => {
      res.statusCode = 201;
      res.setHeader('Content-Type', 'text/plain');
      endAtTurnEnd(res, 'hello');
      seen.push(`ended at once: ${res.writableEnded}`);
      setImmediate(() => seen.push(`ended by the next check phase: ${res.writableEnded}`));
    });
    const reply = await fetch(url);
    expect(reply.status).toBe(201);
    expect(await reply.text()).toBe('hello');
    expect(seen).toEqual(['ended at once: false', 'ended by the next check phase: true']);
  });

  it('ends every response of a turn, in order, and skips one destroyed meanwhile', async () => {
    const ended: string[] = [];
    const url = await serve((res) => {
      res.on('finish', () => ended.push('finished'));
      endAtTurnEnd(res, 'kept');
    });
    const replies = await Promise.all([fetch(url), fetch(url), fetch(url)]);
    expect(await Promise.all(replies.map((r) => r.text()))).toEqual(['kept', 'kept', 'kept']);
    expect(ended).toEqual(['finished', 'finished', 'finished']);

    // A response destroyed before the turn ends (the client went away) is not written.
    let destroyedEnded: boolean | undefined;
    const gone = await serve((res) => {
      endAtTurnEnd(res, 'never sent');
      res.destroy();
      setImmediate(() => setImmediate(() => (destroyedEnded = res.writableEnded)));
    });
    await expect(fetch(gone)).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(destroyedEnded).toBe(false);
  });
});
