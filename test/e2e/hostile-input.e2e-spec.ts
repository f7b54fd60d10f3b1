import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FIRMWARE_MAX_BYTES, LOGDATA_MAX_BYTES } from './support/constants.js';
import { binaryWith, multipart, productLine, uploadFirmware } from './support/firmware.js';
import { type HttpReply, PROBLEM_TYPE } from './support/http.js';
import { expectProblem } from './support/problems.js';
import { sendLargeHeaders, sendRaw, sendWholeBody, tally } from './support/refusals.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** docs/api.md "Limits and errors": hostile input is refused in the contract's format, nothing unstorable is stored, every refusal is readable. */

const TEXT_RULE = 'must not contain U+0000 or unpaired surrogates';
const RANGE_RULE = 'must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z';

function expectTextLine(reply: HttpReply, status: number, message: string | RegExp): void {
  expect(reply.status).toBe(status);
  expect(reply.contentType).toMatch(/^text\/plain\b/);
  const match = /^(\d{3}) ([^:\n]+): ([^\n]*)\n$/.exec(reply.text);
  expect(match?.[1]).toBe(String(status));
  if (typeof message === 'string') expect(match?.[3]).toBe(message);
  else expect(match?.[3]).toMatch(message);
}

/** The status line, headers and body of a raw answer. */
function parseRaw(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

describe('hostile input', () => {
  let rt: Runtime;
  let customer: CustomerFixture;
  let admin: string;
  let port: number;

  beforeAll(async () => {
    rt = await startRuntime();
    customer = await rt.newCustomer();
    admin = await rt.adminToken();
    port = Number(new URL(rt.baseUrl).port);
  });
  afterAll(async () => {
    await rt?.stop();
  });

  describe('text no database can hold is refused where it enters (400), in every place a string arrives', () => {
    it('query parameters: customer=, list filters, admin filters', async () => {
      expectProblem(await rt.http.get('/devices', { auth: admin, query: { customer: '\u0000' } }), 400, `query parameter customer ${TEXT_RULE}`);
      for (const filter of ['fw_name', 'hw_name', 'hw_version', 'tag']) {
        expectProblem(await rt.http.get('/firmware', { auth: customer.full, query: { [filter]: 'a\u0000' } }), 400, `query parameter ${filter} ${TEXT_RULE}`);
      }
      expectProblem(await rt.http.get('/admin/audit', { auth: admin, query: { domain: '\u0000' } }), 400, `query parameter domain ${TEXT_RULE}`);
      expectProblem(await rt.http.get('/admin/security/events', { auth: admin, query: { kind: '\u0000' } }), 400, `query parameter kind ${TEXT_RULE}`);
    });

    it('path parameters', async () => {
      expectProblem(await rt.http.get('/admin/customers/%00', { auth: admin }), 400, `path parameter domain ${TEXT_RULE}`);
      // A parameter with a pattern of its own refuses it by that pattern first.
      expectProblem(await rt.http.get('/devices/a%00b', { auth: customer.full }), 400, /^hwid must be 1 to 64 printable ASCII/);
    });

    it('JSON bodies: values and property names, and nothing is created', async () => {
      const before = (await rt.http.get('/tokens', { auth: customer.owner })).json<{ items: unknown[] }>().items.length;
      expectProblem(await rt.http.post('/tokens', { auth: customer.owner, json: { name: '\ud800', bundle: 'full' } }), 400, `body property name ${TEXT_RULE}`);
      expectProblem(
        await rt.http.post('/tokens', { auth: customer.owner, json: { name: 'ci\u0000', bundle: 'full' } }),
        400,
        `body property name ${TEXT_RULE}`,
      );
      expect((await rt.http.get('/tokens', { auth: customer.owner })).json<{ items: unknown[] }>().items).toHaveLength(before);
      expectProblem(
        await rt.http.post('/devices', { auth: customer.full, json: { hwid: 'dev-hostile-1', attributes: { ['k\udc00']: 'v' } } }),
        400,
        `body property attributes."k\\udc00" ${TEXT_RULE}`,
      );
      expectProblem(
        await rt.http.post('/admin/customers', { auth: admin, json: { domain: 'nul-name.example', name: 'Evil\u0000 Corp' } }),
        400,
        `body property name ${TEXT_RULE}`,
      );
    });

    it('a token name that is text like any other (a surrogate pair, control characters) is stored and audited', async () => {
      const name = 'rocket \ud83d\ude80 \u0007';
      const created = await rt.http.post('/tokens', { auth: customer.owner, json: { name, bundle: 'read-only' } });
      expect(created.status).toBe(201);
      expect(created.json<{ name: string }>().name).toBe(name);
    });
  });

  describe('dates are refused outside the storable range, the same way wherever they arrive', () => {
    it('a what string dated in year 0000: parse reports it, upload refuses it like any what string it cannot read (422)', async () => {
      const firmware = binaryWith(['1.0.0, 0000-06-01, AFI']);
      const { body, contentType } = multipart([{ name: 'firmware', data: firmware, filename: 'firmware.bin', contentType: 'application/octet-stream' }]);
      const parse = await rt.http.post('/firmware/parse', { auth: customer.full, body, headers: { 'content-type': contentType } });
      expect(parse.status).toBe(200);
      expect(parse.json<{ what_strings: unknown[] }>().what_strings[0]).toMatchObject({ build_date: null, error: expect.stringContaining(RANGE_RULE) });
      const line = productLine();
      const upload = await uploadFirmware(rt, customer.full, { path: `/firmware/${line.hw}/${line.rev}/${line.fw}`, firmware, acceptJson: true });
      expectProblem(upload, 422, new RegExp(`build_date "0000-06-01" ${RANGE_RULE}`));
    });

    it('build_date and list filters in the query: 400 naming the range', async () => {
      const line = productLine();
      const upload = await uploadFirmware(rt, customer.full, {
        path: `/firmware/${line.hw}/${line.rev}/${line.fw}`,
        query: { fw_version: '1.0.0', build_date: '0000-01-01T00:00:00Z' },
        firmware: binaryWith([]),
        acceptJson: true,
      });
      expectProblem(upload, 400, `build_date ${RANGE_RULE}`);
      expectProblem(
        await rt.http.get('/logdata', { auth: customer.full, query: { uploaded_after: '0000-12-31T23:59:59Z' } }),
        400,
        `uploaded_after ${RANGE_RULE}`,
      );
    });
  });

  describe('text-mode routes answer every refusal as a text line, routing and percent-encoding included', () => {
    const name = 'ab'.repeat(64);

    it('bad percent-encoding on the log, upload-path, update-check and /dl routes', async () => {
      expectTextLine(await rt.http.get('/logdata/%zz', { auth: customer.full }), 400, 'path is not valid percent-encoding');
      expectTextLine(await rt.http.put('/logdata/%E0%A4', { auth: customer.full, body: 'x' }), 400, 'path is not valid percent-encoding');
      expectTextLine(await rt.http.get(`/firmware/${customer.domain}/%E0/rev/fw/1.0`), 400, 'path is not valid percent-encoding');
      expectTextLine(await rt.http.get('/dl/%zz'), 400, 'path is not valid percent-encoding');
      // With Accept: application/json the same refusal is problem+json.
      expectProblem(await rt.http.get('/logdata/%zz', { auth: customer.full, acceptJson: true }), 400, 'path is not valid percent-encoding');
    });

    it('a method the path does not have: 405 as a text line with Allow', async () => {
      const reply = await rt.http.post(`/logdata/${name}`, { auth: customer.full });
      expectTextLine(reply, 405, 'POST is not allowed here');
      expect(reply.header('allow')).toMatch(/GET/);
    });
  });

  describe("requests Node's HTTP parser refuses get a problem+json answer and Connection: close", () => {
    const cases: Array<[string, string, number, RegExp]> = [
      ['a control byte in the request line', 'GET /healthz\u0001 HTTP/1.1\r\nHost: x\r\n\r\n', 400, /not valid HTTP\/1\.1/],
      ['a non-ASCII byte in the request line', 'GET /h\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n', 400, /not valid HTTP\/1\.1/],
      ['a Content-Length that is no number', 'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n', 400, /Content-Length/],
      ['two different Content-Lengths', 'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', 400, /not valid HTTP/],
      ['an unknown Transfer-Encoding', 'POST /auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: bogus\r\n\r\n', 400, /Transfer-Encoding/],
      ['headers over the limit', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, /larger than 16384 bytes/],
    ];
    it.each(cases)('%s', async (_what, request, status, detail) => {
      const answer = parseRaw(await sendRaw(port, Buffer.from(request, 'latin1')));
      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toBe('application/problem+json');
      expect(answer.headers.connection).toBe('close');
      const body = JSON.parse(answer.body) as { status: number; detail: string; request_id: string };
      expect(body).toMatchObject({ type: expect.stringMatching(PROBLEM_TYPE), status, request_id: answer.headers['x-request-id'] });
      expect(body.detail).toMatch(detail);
    });

    it('a request without Host (HTTP/1.1) is a 400 in the format of its endpoint', async () => {
      const answer = parseRaw(await sendRaw(port, Buffer.from('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n', 'latin1')));
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ detail: 'a Host header is required' });
    });

    it('an expectation other than 100-continue is ignored and the request answered', async () => {
      const answer = parseRaw(await sendRaw(port, Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nConnection: close\r\n\r\n', 'latin1')));
      expect(answer.status).toBe(200);
    });
  });

  describe('a client still sending reads the refusal (lingering close)', () => {
    const TRIES = 10;
    const name = 'cd'.repeat(64);

    it(`an upload over the limit, announced by Content-Length: the 413 is read in ${TRIES} of ${TRIES} tries`, async () => {
      const body = Buffer.alloc(LOGDATA_MAX_BYTES + 1, 7);
      const outcomes = [];
      for (let i = 0; i < TRIES; i++)
        outcomes.push(await sendWholeBody(`${rt.baseUrl}/logdata/${name}`, 'PUT', { authorization: `Bearer ${customer.full}` }, body));
      expect(tally(outcomes, 413)).toEqual({ answered: TRIES, tries: TRIES, other: {} });
    });

    it('an upload refused for its credentials (401) or its media type (415) before its body is read', async () => {
      const body = Buffer.alloc(FIRMWARE_MAX_BYTES, 7);
      const unauthenticated = [];
      for (let i = 0; i < TRIES; i++) unauthenticated.push(await sendWholeBody(`${rt.baseUrl}/logdata/${name}`, 'PUT', {}, body));
      expect(tally(unauthenticated, 401)).toEqual({ answered: TRIES, tries: TRIES, other: {} });
      const wrongType = [];
      for (let i = 0; i < TRIES; i++)
        wrongType.push(await sendWholeBody(`${rt.baseUrl}/firmware`, 'PUT', { authorization: `Bearer ${customer.full}`, 'content-type': 'text/plain' }, body));
      expect(tally(wrongType, 415)).toEqual({ answered: TRIES, tries: TRIES, other: {} });
    });

    it('a JSON body over its limit: 413 read', async () => {
      const outcomes = [];
      for (let i = 0; i < TRIES; i++)
        outcomes.push(await sendWholeBody(`${rt.baseUrl}/auth/login`, 'POST', { 'content-type': 'application/json' }, Buffer.alloc(4 * 1024 * 1024, 0x20)));
      expect(tally(outcomes, 413)).toEqual({ answered: TRIES, tries: TRIES, other: {} });
    });

    it('100 KB of request headers: the 431 is read', async () => {
      const outcomes = [];
      for (let i = 0; i < TRIES; i++) outcomes.push(await sendLargeHeaders(`${rt.baseUrl}/healthz`, 100 * 1024));
      expect(tally(outcomes, 431)).toEqual({ answered: TRIES, tries: TRIES, other: {} });
    });

    it('the connection is closed after the refusal (not kept for another request)', async () => {
      const raw = await sendRaw(port, Buffer.from(`PUT /logdata/${name} HTTP/1.1\r\nHost: x\r\nContent-Length: ${LOGDATA_MAX_BYTES + 1}\r\n\r\n`, 'latin1'));
      // sendRaw resolves only when the server closes its side.
      expect(parseRaw(raw)).toMatchObject({ status: 401, headers: { connection: 'close' } });
    });
  });
});
