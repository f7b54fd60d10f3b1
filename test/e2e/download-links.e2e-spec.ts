import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DownloadLinkSigner } from '../../libs/infra/src/downloads/download-links.js';
import { letters, randomContent, randomLogName } from './support/factories.js';
import { type HttpReply, PROBLEM_TYPE } from './support/http.js';
import { expectProblem } from './support/problems.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/**
 * docs/api.md "Download links": expired links answer 410, forged or
 * malformed ones 404, too many downloads from one address 429 with Retry-After. The 429 test
 * downloads from a loopback address of its own, so it exhausts that address's budget only.
 */

function expectTextError(reply: HttpReply, status: number, line: string): void {
  expect(reply.status).toBe(status);
  expect(reply.contentType).toMatch(/^text\/plain\b/);
  expect(reply.text.trimEnd()).toBe(line);
}

/** A successful /dl GET: the file (200) or a redirect to a pre-signed object-store URL (302). */
function expectServed(reply: HttpReply): void {
  expect([200, 302]).toContain(reply.status);
}

describe('download links', () => {
  let rt: Runtime;
  let customer: CustomerFixture;
  let name: string;
  let content: Buffer;
  let link: string;
  let token: string;

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await rt.newCustomer();
    name = randomLogName();
    content = randomContent(2345);
    const upload = await rt.http.put(`/logdata/${name}`, { auth: customer.uploader, body: content });
    expect(upload.status).toBe(200);
    const redirect = await rt.http.get(`/logdata/${name}`, { auth: customer.readOnly });
    expect(redirect.status).toBe(302);
    link = redirect.header('location')!;
    token = link.slice(`${rt.baseUrl}/dl/`.length);
    expect(token.length).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  /** The claims inside a /dl token (body "." signature; the body is base64url JSON). */
  const claimsOf = (t: string) => JSON.parse(Buffer.from(t.split('.')[0], 'base64url').toString('utf8')) as { file: unknown; exp: number };

  it('a fresh link is valid for 5 minutes and serves the file', async () => {
    const { exp } = claimsOf(token);
    const now = Math.floor(Date.now() / 1000);
    expect(exp - now).toBeGreaterThan(290);
    expect(exp - now).toBeLessThanOrEqual(300);
    const { reply } = await rt.http.follow(link);
    expect(reply.status).toBe(200);
    expect(reply.body.equals(content)).toBe(true);
  });

  it('a link signed with the service key for a time in the past answers 410 (GET and HEAD)', async () => {
    const signer = new DownloadLinkSigner(rt.downloadSecret);
    const { file } = claimsOf(token);
    // Control: the same file signed now with the same key is served, so the key is the service's.
    const valid = await rt.http.follow(`${rt.baseUrl}/dl/${signer.sign(file as never)}`);
    expect(valid.reply.status).toBe(200);
    expect(valid.reply.body.equals(content)).toBe(true);

    const expired = signer.sign(file as never, Math.floor(Date.now() / 1000) - 301); // expired a second ago
    expectTextError(await rt.http.get(`/dl/${expired}`), 410, '410 Gone: download link expired');
    expectProblem(await rt.http.get(`/dl/${expired}`, { acceptJson: true }), 410, { detail: 'download link expired', code: 'download_link_expired' });
    const head = await rt.http.head(`/dl/${expired}`);
    expect(head.status).toBe(410);
    expect(head.body.length).toBe(0);
    const longAgo = signer.sign(file as never, Math.floor(Date.now() / 1000) - 86_400);
    expect((await rt.http.get(`/dl/${longAgo}`)).status).toBe(410);
  });

  describe('forged, tampered or garbage links answer 404', () => {
    const cases: [string, () => string][] = [
      [
        'a changed signature',
        () => {
          const [body, sig] = token.split('.') as [string, string];
          const flipped = sig[0] === 'A' ? `B${sig.slice(1)}` : `A${sig.slice(1)}`;
          return `${body}.${flipped}`;
        },
      ],
      [
        'claims changed without re-signing (later expiry)',
        () => {
          const claims = claimsOf(token);
          const body = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url');
          return `${body}.${token.split('.')[1]}`;
        },
      ],
      ['a link signed with another key', () => new DownloadLinkSigner(`other-${letters(40)}`).sign(claimsOf(token).file as never)],
      ['garbage', () => letters(40)],
      ['two dots', () => `${token}.x`],
      ['no signature', () => token.split('.')[0]],
    ];

    it.each(cases)('%s', async (_label, make) => {
      const forged = make();
      expectTextError(await rt.http.get(`/dl/${forged}`), 404, '404 Not Found: download link not found');
      expect((await rt.http.head(`/dl/${forged}`)).status).toBe(404);
    });

    it('answers problem+json when asked for JSON', async () => {
      const reply = await rt.http.get(`/dl/${letters(30)}`, { acceptJson: true, headers: { 'X-Request-Id': `e2e-${letters(10)}` } });
      expect(reply.status).toBe(404);
      expect(reply.contentType).toMatch(/^application\/problem\+json\b/);
      expect(reply.json()).toEqual({
        type: expect.stringMatching(PROBLEM_TYPE),
        title: 'Not Found',
        status: 404,
        detail: 'download link not found',
        instance: reply.url.slice(rt.baseUrl.length),
        request_id: reply.header('x-request-id'),
        code: 'download_link_not_found',
      });
    });
  });

  it('too many downloads from one address answer 429 with Retry-After; other addresses are unaffected', async () => {
    const address = `127.0.0.${randomInt(2, 255)}`;
    const limit = rt.downloadRatePerMinute;
    const statuses: number[] = [];
    for (let i = 0; i < limit; i++) {
      const reply = await rt.http.get(link, { localAddress: address });
      expectServed(reply);
      statuses.push(reply.status);
    }
    expect(statuses).toHaveLength(limit);

    const limited = await rt.http.get(link, { localAddress: address });
    expectTextError(limited, 429, '429 Too Many Requests: too many downloads from this address');
    const retryAfter = limited.header('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect((await rt.http.get(link, { localAddress: address })).status).toBe(429);

    // Another client address still downloads.
    const other = await rt.http.follow(link);
    expect(other.reply.status).toBe(200);
    expect(other.reply.body.equals(content)).toBe(true);
  });
});
