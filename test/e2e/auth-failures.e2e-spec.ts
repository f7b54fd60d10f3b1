import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, importPKCS8, SignJWT, type JWTPayload } from 'jose';
import { letters, randomLogName } from './support/factories.js';
import { type HttpReply, PROBLEM_TYPE } from './support/http.js';
import { expectProblem } from './support/problems.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** Failure responses, CSRF and errors in both formats (docs/api.md "Sessions and CSRF", "Limits and errors"). */

const REALM = 'Bearer realm="service"';
const INVALID_TOKEN = 'Bearer realm="service", error="invalid_token"';
const REVOKED = 'token revoked, expired or unknown';

function problem(reply: HttpReply): Record<string, unknown> {
  expect(reply.contentType).toMatch(/^application\/problem\+json\b/);
  return reply.json();
}

function textLine(reply: HttpReply): string {
  expect(reply.contentType).toMatch(/^text\/plain\b/);
  expect(reply.text.replace(/\n$/, '')).not.toContain('\n');
  return reply.text.trimEnd();
}

describe('authentication and authorisation failures', () => {
  let rt: Runtime;
  let a: CustomerFixture;
  let b: CustomerFixture;
  let fileName: string;

  beforeAll(async () => {
    rt = await startRuntime();
    a = await rt.newCustomer();
    b = await rt.newCustomer();
    // Authentication and the customer rule come before the file lookup: the name need not exist.
    fileName = randomLogName();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  /** The service's newest signing key, read from its database (white box: to forge tokens it would have issued). */
  const serviceKey = async () => {
    const [row] = await rt.query<{ kid: string; private_pkcs8: string }>(
      'SELECT kid, private_pkcs8 FROM identity.signing_keys WHERE active ORDER BY created_at DESC LIMIT 1',
    );
    expect(row).toBeDefined();
    return { kid: row.kid, key: await importPKCS8(row.private_pkcs8, 'EdDSA') };
  };
  const signWith = (claims: JWTPayload, key: Parameters<SignJWT['sign']>[0], header: { alg: string; kid?: string }) =>
    new SignJWT(claims).setProtectedHeader({ ...header, typ: 'JWT' }).sign(key);

  describe('no or malformed Authorization', () => {
    it('no Authorization header: 401 asking for a Bearer token, with WWW-Authenticate Bearer realm="service"', async () => {
      const json = await rt.http.get('/logdata');
      expectProblem(json, 401, 'authentication required: send Authorization: Bearer <token>');
      expect(json.header('www-authenticate')).toBe(REALM);

      const text = await rt.http.get(`/logdata/${fileName}`);
      expect(text.status).toBe(401);
      expect(textLine(text)).toBe('401 Unauthorized: authentication required: send Authorization: Bearer <token>');
      expect(text.header('www-authenticate')).toBe(REALM);
    });

    it("Authorization: Basic x answers 401: the header must be 'Bearer <token>'", async () => {
      const reply = await rt.http.get('/logdata', { auth: { authorization: 'Basic x' } });
      expectProblem(reply, 401, { detail: "Authorization header must be 'Bearer <token>'", code: 'authorization_not_bearer' });
      expect(reply.header('www-authenticate')).toMatch(/^Bearer realm="service"/);
      const empty = await rt.http.get('/logdata', { auth: { authorization: 'Bearer' } });
      expectProblem(empty, 401, { detail: "Authorization header must be 'Bearer <token>'", code: 'authorization_not_bearer' });
    });

    it('a garbage token answers 401 invalid token: ... with error="invalid_token"', async () => {
      for (const garbage of [letters(30), 'a.b.c', `${a.readOnly}x`]) {
        const reply = await rt.http.get('/logdata', { auth: garbage });
        expectProblem(reply, 401, /^invalid token: \S/);
        expect(reply.header('www-authenticate')).toBe(INVALID_TOKEN);
      }
    });

    it('a token re-signed with another Ed25519 key answers 401 invalid token', async () => {
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      const claims = decodeJwt(a.full);
      const header = decodeProtectedHeader(a.full);
      // Same kid as the service's key: the signature is what fails.
      const sameKid = await signWith(claims, privateKey, { alg: 'EdDSA', kid: header.kid });
      const reply = await rt.http.get('/logdata', { auth: sameKid });
      expectProblem(reply, 401, { detail: /^invalid token: /, code: 'token_invalid' });
      expect(reply.header('www-authenticate')).toBe(INVALID_TOKEN);
      // A key id the service never published.
      const otherKid = await signWith(claims, privateKey, { alg: 'EdDSA', kid: letters(20) });
      expectProblem(await rt.http.get('/logdata', { auth: otherKid }), 401, { detail: /^invalid token: /, code: 'token_invalid' });
    });

    it('a token in the retired format (HS256, typ api) answers 401 asking to create a new token', async () => {
      const claims = decodeJwt(a.full);
      const legacy = await signWith(claims, new TextEncoder().encode(letters(48)), { alg: 'HS256' });
      const reply = await rt.http.get('/logdata', { auth: legacy });
      expectProblem(reply, 401, /create a new token/);
      expect(String(problem(reply).detail)).not.toMatch(/^invalid token:/);
      expect(reply.header('www-authenticate')).toMatch(/^Bearer realm="service"/);
    });
  });

  describe('expired, revoked and unknown tokens', () => {
    it('a token signed by the service key with its own claims is accepted (control for the forgeries below)', async () => {
      const { kid, key } = await serviceKey();
      const now = Math.floor(Date.now() / 1000);
      const claims = { ...decodeJwt(a.readOnly), iat: now, nbf: now, exp: now + 600 };
      const reply = await rt.http.get('/logdata', { auth: await signWith(claims, key, { alg: 'EdDSA', kid }) });
      expect(reply.status).toBe(200);
    });

    it('an expired token answers 401 token revoked, expired or unknown with error="invalid_token"', async () => {
      const { kid, key } = await serviceKey();
      const now = Math.floor(Date.now() / 1000);
      const claims = { ...decodeJwt(a.readOnly), iat: now - 91 * 86_400, nbf: now - 91 * 86_400, exp: now - 86_400 };
      const reply = await rt.http.get('/logdata', { auth: await signWith(claims, key, { alg: 'EdDSA', kid }) });
      expectProblem(reply, 401, { detail: REVOKED, code: 'token_revoked' });
      expect(reply.header('www-authenticate')).toBe(INVALID_TOKEN);
    });

    it('a well-signed token with an unknown id (jti) answers 401 token revoked, expired or unknown', async () => {
      const { kid, key } = await serviceKey();
      const claims = { ...decodeJwt(a.readOnly), jti: randomUUID() };
      const reply = await rt.http.get('/logdata', { auth: await signWith(claims, key, { alg: 'EdDSA', kid }) });
      expectProblem(reply, 401, { detail: REVOKED, code: 'token_revoked' });
      expect(reply.header('www-authenticate')).toBe(INVALID_TOKEN);
    });

    it('a revoked token answers 401 at once on the same gateway (text and JSON endpoints)', async () => {
      const created = await rt.createToken(a.owner, 'read-only');
      // Used (and so cached by the gateway) before the revocation.
      expect((await rt.http.get('/logdata', { auth: created.token })).status).toBe(200);
      const revoke = await rt.http.delete(`/tokens/${created.id}`, { auth: a.owner });
      expect(revoke.status).toBe(204);

      const json = await rt.http.get('/logdata', { auth: created.token });
      expectProblem(json, 401, { detail: REVOKED, code: 'token_revoked' });
      expect(json.header('www-authenticate')).toBe(INVALID_TOKEN);
      const text = await rt.http.get(`/logdata/${fileName}`, { auth: created.token });
      expect(text.status).toBe(401);
      expect(textLine(text)).toBe(`401 Unauthorized: ${REVOKED}`);
      expect(text.header('www-authenticate')).toBe(INVALID_TOKEN);
      // The record stays, marked revoked.
      const list = await rt.http.get('/tokens', { auth: a.owner });
      const record = list.json().items.find((t: { id: string }) => t.id === created.id);
      expect(record).toMatchObject({ id: created.id, status: 'revoked', revoked_at: expect.any(String) });
    });
  });

  describe('scopes and customers', () => {
    it('a valid token lacking the scope answers 403 missing scope <scope>', async () => {
      const put = await rt.http.put(`/logdata/${randomLogName()}`, { auth: a.readOnly, body: Buffer.from('x') });
      expect(put.status).toBe(403);
      expect(textLine(put)).toBe('403 Forbidden: missing scope logdata:write');
      expectProblem(await rt.http.get('/admin/customers', { auth: a.full }), 403, 'missing scope admin');
      expectProblem(await rt.http.post('/admin/customers', { auth: a.full, json: { domain: `x-${letters(8)}.test` } }), 403, 'missing scope admin');
    });

    it('customer=<a customer the caller does not belong to> answers 404 customer not found', async () => {
      expectProblem(await rt.http.get('/logdata', { auth: b.full, query: { customer: a.domain } }), 404, {
        detail: 'customer not found',
        code: 'customer_not_found',
      });
      // The same answer whether or not the customer exists.
      expectProblem(await rt.http.get('/logdata', { auth: b.full, query: { customer: `nobody-${letters(8)}.test` } }), 404, {
        detail: 'customer not found',
        code: 'customer_not_found',
      });
      const text = await rt.http.get(`/logdata/${fileName}`, { auth: b.full, query: { customer: a.domain } });
      expect(text.status).toBe(404);
      expect(textLine(text)).toBe('404 Not Found: customer not found');
      // Administrators may select any existing customer, but not an unknown one.
      const admin = await rt.adminToken();
      expect((await rt.http.get('/logdata', { auth: admin, query: { customer: a.domain } })).status).toBe(200);
      expectProblem(await rt.http.get('/logdata', { auth: admin, query: { customer: `nobody-${letters(8)}.test` } }), 404, {
        detail: 'customer not found',
        code: 'customer_not_found',
      });
    });
  });

  describe('CSRF on cookie-authenticated writes', () => {
    it('a write with session cookies and no CSRF token answers 403 missing or invalid CSRF token', async () => {
      const reply = await rt.http.post('/tokens', { auth: a.owner, csrf: 'none', json: { name: 'no csrf', bundle: 'read-only' } });
      expectProblem(reply, 403, { detail: 'missing or invalid CSRF token', code: 'csrf_invalid' });
      const wrong = await rt.http.post('/tokens', { auth: a.owner, csrf: { value: letters(32) }, json: { name: 'wrong csrf', bundle: 'read-only' } });
      expectProblem(wrong, 403, { detail: 'missing or invalid CSRF token', code: 'csrf_invalid' });
      // Another person's CSRF token does not fit this session.
      const foreign = await rt.http.post('/tokens', { auth: a.owner, csrf: { value: b.owner.csrfToken }, json: { name: 'foreign csrf', bundle: 'read-only' } });
      expectProblem(foreign, 403, { detail: 'missing or invalid CSRF token', code: 'csrf_invalid' });
      const del = await rt.http.delete(`/tokens/${a.tokens.uploader.id}`, { auth: a.owner, csrf: 'none' });
      expectProblem(del, 403, { detail: 'missing or invalid CSRF token', code: 'csrf_invalid' });
      // Nothing was created or revoked.
      const items: { name: string; id: string; status: string }[] = (await rt.http.get('/tokens', { auth: a.owner })).json().items;
      expect(items.map((t) => t.name)).not.toEqual(expect.arrayContaining(['no csrf']));
      expect(items.find((t) => t.id === a.tokens.uploader.id)?.status).toBe('active');
    });

    it('accepts the CSRF token in the X-CSRF-Token header', async () => {
      const reply = await rt.http.post('/tokens', { auth: a.owner, csrf: 'header', json: { name: `csrf header ${letters(4)}`, bundle: 'read-only' } });
      expect(reply.status).toBe(201);
    });

    it('accepts the CSRF token in the csrf query parameter', async () => {
      const reply = await rt.http.post('/tokens', { auth: a.owner, csrf: 'query', json: { name: `csrf query ${letters(4)}`, bundle: 'read-only' } });
      expect(reply.status).toBe(201);
    });

    it('reads with cookies and writes with Bearer tokens need no CSRF token', async () => {
      expect((await rt.http.get('/tokens', { auth: a.owner })).status).toBe(200);
      expect((await rt.http.post('/tokens', { auth: a.full, json: { name: `by token ${letters(4)}`, bundle: 'read-only' } })).status).toBe(201);
    });
  });

  describe('error formats', () => {
    it('log GET and PUT answer one text line `<status> <reason>: <message>` by default', async () => {
      const absent = randomLogName();
      const get = await rt.http.get(`/logdata/${absent}`, { auth: a.readOnly });
      expect(get.status).toBe(404);
      expect(get.contentType).toBe('text/plain; charset=utf-8');
      expect(textLine(get)).toBe('404 Not Found: log file not found');

      const put = await rt.http.put(`/logdata/${absent.slice(1)}`, { auth: a.uploader, body: Buffer.from('x') });
      expect(put.status).toBe(400);
      expect(textLine(put)).toBe('400 Bad Request: log file name must be exactly 128 hex characters');
    });

    it('with Accept: application/json they answer problem+json with instance and the echoed request id', async () => {
      const absent = randomLogName();
      const requestId = `e2e-${letters(20)}`;
      const reply = await rt.http.get(`/logdata/${absent}`, {
        auth: a.readOnly,
        acceptJson: true,
        headers: { 'X-Request-Id': requestId },
        query: { customer: a.domain },
      });
      expect(reply.status).toBe(404);
      expect(reply.header('x-request-id')).toBe(requestId);
      expect(reply.contentType).toMatch(/^application\/problem\+json\b/);
      expect(reply.json()).toEqual({
        type: `${rt.baseUrl}/docs/errors#log_file_not_found`,
        title: 'Not Found',
        status: 404,
        detail: 'log file not found',
        instance: `/logdata/${absent}`,
        request_id: requestId,
        code: 'log_file_not_found',
      });
    });

    it('JSON endpoints answer problem+json without being asked', async () => {
      const requestId = `e2e-${letters(20)}`;
      const reply = await rt.http.get('/logdata', { auth: a.readOnly, query: { limit: 0 }, headers: { 'X-Request-Id': requestId } });
      expect(reply.status).toBe(400);
      expect(reply.json()).toEqual({
        type: `${rt.baseUrl}/docs/errors#invalid_request`,
        title: 'Bad Request',
        status: 400,
        detail: 'limit must be an integer from 1 to 500',
        instance: '/logdata',
        request_id: requestId,
        code: 'invalid_request',
      });
      const unknown = await rt.http.get(`/${letters(12)}`);
      expect(unknown.status).toBe(404);
      expect(problem(unknown)).toMatchObject({
        type: expect.stringMatching(PROBLEM_TYPE),
        title: 'Not Found',
        status: 404,
        instance: unknown.url.slice(rt.baseUrl.length),
      });
    });
  });
});
