import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { parseSignatureInput, type PublicJwk, type SignedAnswer, verifyAnswer } from '@app/testing';
import { runCli } from './support/cli.js';
import { eventually } from './support/factories.js';
import { clientAddress, createBuild, createDevice, productLine, updateCheckPath } from './support/firmware.js';
import type { HttpReply } from './support/http.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/**
 * docs/api.md "Signed answers" and "When to check again": every 200 of the update check is
 * signed (RFC 9421, Ed25519, keys in /.well-known/jwks.json), checked here with an independent
 * verifier (Node's crypto and the test's own parsing, libs/testing answer-signatures.ts), and
 * every answer carries Poll-After.
 */
describe('update check: signed answers and Poll-After', () => {
  let rt: Runtime;
  let c: CustomerFixture;
  const line = productLine();

  const signedAnswerOf = (reply: HttpReply): SignedAnswer => {
    const url = new URL(reply.url);
    return {
      status: reply.status,
      body: reply.body,
      path: url.pathname,
      search: url.search,
      headers: { contentDigest: reply.header('content-digest'), signatureInput: reply.header('signature-input'), signature: reply.header('signature') },
    };
  };
  const updateKeys = async (): Promise<PublicJwk[]> => {
    const reply = await rt.http.get('/.well-known/jwks.json');
    expect(reply.status).toBe(200);
    return reply.json<{ keys: PublicJwk[] }>().keys.filter((k) => k.kid.startsWith('update-'));
  };
  const check = (path: string, headers: Record<string, string> = {}) => rt.http.get(path, { localAddress: clientAddress(), headers });

  beforeAll(async () => {
    rt = await startRuntime();
    c = await rt.newCustomer();
    await createBuild(rt, c.uploader, line, '2.0', { general: true });
    await createDevice(rt, c.full, 'sig-dev', []);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it('publishes the update-answer keys beside the token keys, with distinct kids', async () => {
    const all = (await rt.http.get('/.well-known/jwks.json')).json<{ keys: Array<PublicJwk & { alg: string; use: string }> }>().keys;
    const update = all.filter((k) => k.kid.startsWith('update-'));
    expect(update.length).toBeGreaterThanOrEqual(1);
    expect(all.length).toBeGreaterThan(update.length); // the token keys are there too
    for (const key of update) expect(key).toMatchObject({ alg: 'EdDSA', crv: 'Ed25519', kty: 'OKP', use: 'sig' });
  });

  it('a 200 is signed over status, Content-Digest, path and query; the answer verifies', async () => {
    const reply = await check(`${updateCheckPath(c.domain, line, '1.0', 'sig-dev')}?type=AFI&latest=true`);
    expect(reply.status).toBe(200);
    const input = parseSignatureInput(reply.header('signature-input')!);
    expect(input.label).toBe('fds');
    expect(input.components).toEqual(['"@status"', '"content-digest"', '"@path";req', '"@query";req']);
    expect(Number(input.params.expires) - Number(input.params.created)).toBe(300);
    expect(input.params.alg).toBe('ed25519');
    expect(verifyAnswer(signedAnswerOf(reply), await updateKeys())).toBeNull();
  });

  it('the path as sent (percent-encoded) and an absent query are what is signed', async () => {
    const reply = await check(updateCheckPath(c.domain, line, '1.0', 'sig-dev/1?x#y%z&w=v+'));
    expect(reply.status).toBe(200);
    const answer = signedAnswerOf(reply);
    expect(answer.path).toContain('sig-dev%2F1%3Fx%23y%25z%26w%3Dv%2B');
    expect(verifyAnswer(answer, await updateKeys())).toBeNull();
    expect(verifyAnswer({ ...answer, path: decodeURIComponent(answer.path) }, await updateKeys())).toBe('signature does not verify');
  });

  it('refuses a tampered body, another device path, a wrong key and an expired signature', async () => {
    const reply = await check(updateCheckPath(c.domain, line, '1.0', 'sig-dev'));
    const answer = signedAnswerOf(reply);
    const keys = await updateKeys();
    expect(verifyAnswer(answer, keys)).toBeNull();
    expect(verifyAnswer({ ...answer, body: Buffer.from(answer.body.toString().replace('2.0', '9.9')) }, keys)).toBe('body does not match Content-Digest');
    // A body swapped together with its digest: the signature no longer matches.
    const forged = Buffer.from('[]');
    const forgedDigest = `sha-256=:${(await import('node:crypto')).createHash('sha256').update(forged).digest('base64')}:`;
    expect(verifyAnswer({ ...answer, body: forged, headers: { ...answer.headers, contentDigest: forgedDigest } }, keys)).toBe('signature does not verify');
    expect(verifyAnswer({ ...answer, path: answer.path.replace('sig-dev', 'other-dev') }, keys)).toBe('signature does not verify');
    const stranger = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    const wrong = keys.map((k) => ({ ...k, x: stranger.x! }));
    expect(verifyAnswer(answer, wrong)).toBe('signature does not verify');
    const expires = Number(parseSignatureInput(answer.headers.signatureInput!).params.expires);
    expect(verifyAnswer(answer, keys, expires)).toBeNull();
    expect(verifyAnswer(answer, keys, expires + 1)).toBe('expired');
  });

  it('a 304 carries Poll-After and no signature; every answer advises a jittered time within the interval', async () => {
    const path = updateCheckPath(c.domain, line, '1.0', 'sig-dev');
    const first = await check(path);
    const again = await check(path, { 'if-none-match': first.header('etag')! });
    expect(again.status).toBe(304);
    expect(again.header('signature')).toBeNull();
    for (const reply of [first, again]) {
      const pollAfter = Number(reply.header('poll-after'));
      expect(pollAfter).toBeGreaterThanOrEqual(1800); // UPDATE_POLL_SECONDS 3600: [I/2, 3I/2)
      expect(pollAfter).toBeLessThan(5400);
    }
    expect(again.header('poll-after')).toBe(first.header('poll-after')); // same device, same window
    const spread = new Set<string>();
    for (let i = 0; i < 20; i++) spread.add((await check(updateCheckPath(c.domain, line, '1.0', `spread-${i}`))).header('poll-after')!);
    expect(spread.size).toBeGreaterThan(10);
  });

  it("the customer's polling interval (PATCH /settings) sets the range; null goes back to the default", async () => {
    expect((await rt.http.get('/settings', { auth: c.readOnly })).json()).toEqual({ poll_interval_seconds: null, effective_poll_interval_seconds: 3600 });
    expect((await rt.http.request('PATCH', '/settings', { auth: c.readOnly, json: { poll_interval_seconds: 600 } })).status).toBe(403);
    expect((await rt.http.request('PATCH', '/settings', { auth: c.full, json: { poll_interval_seconds: 59 } })).status).toBe(400);
    const changed = await rt.http.request('PATCH', '/settings', { auth: c.full, json: { poll_interval_seconds: 600 } });
    expect(changed.json()).toEqual({ poll_interval_seconds: 600, effective_poll_interval_seconds: 600 });
    const pollAfter = await eventually(
      async () => Number((await check(updateCheckPath(c.domain, line, '1.0', 'sig-dev'))).header('poll-after')),
      (value) => value < 900, // the cached customer is dropped on customerChanged
    );
    expect(pollAfter).toBeGreaterThanOrEqual(300);
    await rt.http.request('PATCH', '/settings', { auth: c.full, json: { poll_interval_seconds: null } });
    expect((await rt.http.get('/settings', { auth: c.full })).json()).toEqual({ poll_interval_seconds: null, effective_poll_interval_seconds: 3600 });
  });

  it('a rotation publishes a new key that signs; answers signed by the old one still verify during the overlap', async () => {
    const before = await updateKeys();
    const old = await check(updateCheckPath(c.domain, line, '1.0', 'rotating-dev'));
    const oldKid = parseSignatureInput(old.header('signature-input')!).params.keyid;
    const rotated = await rt.http.post('/admin/update-signing-keys/rotate', { auth: await rt.adminToken(), json: { starts_in_seconds: 0 } });
    expect(rotated.status).toBe(200);
    const listed = rotated.json<{ keys: Array<{ kid: string; published_until: string | null }> }>().keys;
    const newKid = listed[0].kid;
    expect(before.map((k) => k.kid)).not.toContain(newKid);
    expect(listed.find((k) => k.kid === oldKid)?.published_until).not.toBeNull();
    const after = await updateKeys();
    expect(after.map((k) => k.kid)).toEqual(expect.arrayContaining([newKid, String(oldKid)]));
    let fresh: HttpReply | undefined;
    // Every firmware replica switches on the rotation's event.
    for (let i = 0; i < 50; i++) {
      fresh = await check(updateCheckPath(c.domain, line, '1.0', `rotated-dev-${i}`));
      if (parseSignatureInput(fresh.header('signature-input')!).params.keyid === newKid) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(parseSignatureInput(fresh!.header('signature-input')!).params.keyid).toBe(newKid);
    expect(verifyAnswer(signedAnswerOf(fresh!), after)).toBeNull();
    expect(verifyAnswer(signedAnswerOf(old), after)).toBeNull(); // the old key is still published
    expect(verifyAnswer(signedAnswerOf(fresh!), before)).toBe('unknown keyid'); // a device that never refreshed its keys
  });

  it('a rotation needs a full administrator and a valid delay', async () => {
    expect((await rt.http.post('/admin/update-signing-keys/rotate', { auth: c.full, json: {} })).status).toBe(403);
    expect((await rt.http.post('/admin/update-signing-keys/rotate', { auth: await rt.adminToken(), json: { starts_in_seconds: -1 } })).status).toBe(400);
  });

  it('the operator CLI rotates with the admin token of FDS_ADMIN_TOKEN (rotate-update-key), and refuses without one', async () => {
    const before = (await updateKeys()).map((k) => k.kid);
    const env = { FDS_URL: rt.baseUrl, FDS_ADMIN_TOKEN: await rt.adminToken() };
    const rotated = await runCli(['rotate-update-key', '--starts-in', '3600', '--json'], env);
    expect(rotated).toMatchObject({ code: 0 });
    const keys = (JSON.parse(rotated.stdout) as { keys: Array<{ kid: string; signs_from: string }> }).keys;
    expect(before).not.toContain(keys[0].kid);
    expect(Date.parse(keys[0].signs_from) - Date.now()).toBeGreaterThan(3_000_000);
    // Published at once: the JWKS lists it before it signs.
    await eventually(updateKeys, (published) => published.some((k) => k.kid === keys[0].kid));
    expect(await runCli(['rotate-update-key'], { FDS_URL: rt.baseUrl })).toMatchObject({ code: 2, stderr: expect.stringContaining('needs an admin token') });
    expect(await runCli(['rotate-update-key', '--starts-in', '2592001'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--starts-in must be an integer from 0 to 2592000'),
    });
  });
});
