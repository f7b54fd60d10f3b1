import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from './support/factories.js';
import { startRuntime, type Runtime } from './support/runtime.js';

/**
 * docs/operations.md "Behind a proxy": both runtimes run with TRUSTED_PROXIES=127.0.1.0/30,
 * so requests sent from 127.0.1.1 come "through the proxy"; every other file sends from 127.0.0.x.
 */
describe('client address behind trusted proxies', () => {
  let rt: Runtime;
  const proxy = '127.0.1.1';
  const innerProxy = '127.0.1.2';
  const untrusted = '127.0.0.19';

  beforeAll(async () => {
    rt = await startRuntime();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  /** A fresh documentation address (RFC 3849), so runs sharing one request log never match each other. */
  const someClient = () => `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

  /** Sends a request and reads its entry in the request log (white-box: no read endpoint yet); returns the address recorded. */
  async function recordedAddress(from: string, forwardedFor: string | undefined): Promise<string> {
    const reply = await rt.http.get('/healthz', { localAddress: from, headers: forwardedFor === undefined ? {} : { 'X-Forwarded-For': forwardedFor } });
    expect(reply.status).toBe(200);
    const requestId = reply.header('x-request-id');
    const rows = await eventually(
      () => rt.query<{ ip: string }>('SELECT ip FROM admin.request_log WHERE request_id = $1', [requestId]),
      (found) => found.length > 0,
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    return rows[0].ip;
  }

  it('from a trusted peer, the rightmost untrusted X-Forwarded-For address is the client, as the request log records', async () => {
    const client = someClient();
    const spoofed = someClient();
    // The client wrote `spoofed` itself; the outer proxy appended `client`, the inner one the outer proxy's address.
    expect(await recordedAddress(proxy, `${spoofed}, ${client}, ${innerProxy}`)).toBe(client);
  });

  it('from an untrusted peer, X-Forwarded-For is ignored: the socket address is recorded', async () => {
    const spoofed = someClient();
    expect(await recordedAddress(untrusted, spoofed)).toBe(untrusted);
  });

  it('from a trusted peer without X-Forwarded-For, the peer itself is the client', async () => {
    expect(await recordedAddress(proxy, undefined)).toBe(proxy);
  });

  it('the login limits count the forwarded client (identity receives it as the client address)', async () => {
    // The login of an unknown address answers 202 like any other; identity received the client address.
    const client = `198.51.100.${1 + (randomBytes(1)[0] % 250)}`;
    const reply = await rt.http.post('/auth/login', {
      json: { email: `nobody-${randomBytes(4).toString('hex')}@example.test` },
      localAddress: proxy,
      headers: { 'X-Forwarded-For': client },
    });
    expect(reply.status).toBeLessThan(300);
    const attempts = await rt.query<{ ip: string }>(`SELECT ip FROM identity.login_attempts WHERE ip = $1`, [client]);
    expect(attempts.length).toBeGreaterThan(0);
  });
});
