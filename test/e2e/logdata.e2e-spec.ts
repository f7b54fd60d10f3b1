import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LOGDATA_MAX_BYTES, LOGDATA_SANDBOX_MAX_BYTES } from './support/constants.js';
import { eventually, hexPrefix, randomContent, randomLogName, sleep } from './support/factories.js';
import { streamingRequest, type HttpReply, type RequestOptions, PROBLEM_TYPE } from './support/http.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';
import { RFC3339 } from './support/formats.js';

/** docs/api.md "Log data" (and the log-file rows of "Limits and errors"). */

interface LogFile {
  name: string;
  size_bytes: number;
  sha256: string;
  content_type: string;
  uploaded_at: string;
  uploaded_by: string;
  download_count: number;
  last_accessed_at: string | null;
}

const BAD_NAME = 'log file name must be exactly 128 hex characters';

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** The text-mode error body: exactly one line `<status> <reason>: <message>`. */
function expectTextError(reply: HttpReply, status: number, reason: string, message: string | RegExp): void {
  expect(reply.status).toBe(status);
  expect(reply.contentType).toMatch(/^text\/plain\b/);
  expect(reply.text.endsWith('\n') ? reply.text.slice(0, -1) : reply.text).not.toContain('\n');
  const line = reply.text.trimEnd();
  if (typeof message === 'string') expect(line).toBe(`${status} ${reason}: ${message}`);
  else {
    expect(line.startsWith(`${status} ${reason}: `)).toBe(true);
    expect(line.slice(`${status} ${reason}: `.length)).toMatch(message);
  }
}

/** A problem+json answer; `code`, when given, is the error code it must carry (and its `type` that code's entry on /docs/errors). */
function expectProblem(reply: HttpReply, status: number, title: string, detail: string | RegExp, instance: string, code?: string): void {
  expect(reply.status).toBe(status);
  expect(reply.contentType).toMatch(/^application\/problem\+json\b/);
  const body = reply.json();
  expect(body).toMatchObject({ type: expect.stringMatching(PROBLEM_TYPE), title, status, instance, request_id: reply.header('x-request-id') });
  if (code !== undefined) expect(body).toMatchObject({ code, type: expect.stringMatching(new RegExp(`#${code}$`)) });
  if (typeof detail === 'string') expect(body.detail).toBe(detail);
  else expect(body.detail).toMatch(detail);
}

describe('log data', () => {
  let rt: Runtime;
  let a: CustomerFixture;
  let b: CustomerFixture;

  const put = (token: string, name: string, body: Buffer, options: Omit<RequestOptions, 'auth' | 'body'> = {}) =>
    rt.http.put(`/logdata/${name}`, { auth: token, body, ...options });
  const meta = async (token: string, name: string, query?: RequestOptions['query']) => rt.http.get(`/logdata/${name}/meta`, { auth: token, query });
  const metaOf = async (token: string, name: string): Promise<LogFile> => {
    const reply = await meta(token, name);
    expect(reply.status).toBe(200);
    return reply.json<LogFile>();
  };
  /** GET /logdata/{name} (302), then the /dl link with redirects followed. */
  const download = async (token: string, name: string, range?: string) => {
    const redirect = await rt.http.get(`/logdata/${name}`, { auth: token });
    expect(redirect.status).toBe(302);
    return rt.http.follow(redirect.header('location')!, { range });
  };

  beforeAll(async () => {
    rt = await startRuntime();
    a = await rt.newCustomer();
    b = await rt.newCustomer();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  describe('upload', () => {
    it('a new file answers 200 with the text OK by default, and the record shows it', async () => {
      const name = randomLogName();
      const content = randomContent(1500);
      const reply = await put(a.uploader, name, content);
      expect(reply.status).toBe(200);
      expect(reply.contentType).toMatch(/^text\/plain\b/);
      expect(reply.text).toBe('OK');
      expect(await metaOf(a.readOnly, name)).toEqual({
        name,
        size_bytes: 1500,
        sha256: sha256(content),
        content_type: 'application/octet-stream',
        uploaded_at: expect.stringMatching(RFC3339),
        uploaded_by: `token:${a.tokens.uploader.id}`,
        download_count: 0,
        last_accessed_at: null,
      });
    });

    it('JSON mode answers 201 with the record and a Location header', async () => {
      const name = randomLogName();
      const content = Buffer.from('line one\nline two\n');
      const before = Date.now();
      const reply = await put(a.uploader, name, content, { acceptJson: true, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
      expect(reply.status).toBe(201);
      expect(reply.contentType).toMatch(/^application\/json\b/);
      expect(reply.header('location')).toBe(`${rt.baseUrl}/logdata/${name}`);
      const record = reply.json<LogFile>();
      expect(record).toEqual({
        name,
        size_bytes: content.length,
        sha256: sha256(content),
        content_type: 'text/plain; charset=utf-8',
        uploaded_at: expect.stringMatching(RFC3339),
        uploaded_by: `token:${a.tokens.uploader.id}`,
        download_count: 0,
        last_accessed_at: null,
      });
      expect(Date.parse(record.uploaded_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(record.uploaded_at)).toBeLessThanOrEqual(Date.now() + 1000);
      expect(await metaOf(a.readOnly, name)).toEqual(record);
    });

    it('an identical re-upload is accepted and changes nothing (text 200 OK; JSON 200 with the stored record)', async () => {
      const name = randomLogName();
      const content = randomContent(4096);
      const created = await put(a.uploader, name, content, { acceptJson: true });
      expect(created.status).toBe(201);
      const stored = created.json<LogFile>();
      await sleep(1100); // a changed uploaded_at would show

      const again = await put(a.uploader, name, content);
      expect(again.status).toBe(200);
      expect(again.text).toBe('OK');

      const againJson = await put(a.full, name, content, { acceptJson: true });
      expect(againJson.status).toBe(200);
      expect(againJson.header('location')).toBeNull();
      expect(againJson.json()).toEqual(stored);
      expect(await metaOf(a.readOnly, name)).toEqual(stored);
    });

    it('different content under an existing name answers 409 and keeps the first bytes', async () => {
      const name = randomLogName();
      const first = randomContent(2048);
      expect((await put(a.uploader, name, first)).status).toBe(200);
      const stored = await metaOf(a.readOnly, name);

      const text = await put(a.uploader, name, randomContent(2048));
      expectTextError(text, 409, 'Conflict', /\S/);
      const json = await put(a.uploader, name, randomContent(10), { acceptJson: true });
      expectProblem(json, 409, 'Conflict', /\S/, `/logdata/${name}`, 'log_file_conflict');

      expect(await metaOf(a.readOnly, name)).toEqual(stored);
      const { reply } = await download(a.readOnly, name);
      expect(reply.status).toBe(200);
      expect(reply.body.equals(first)).toBe(true);
    });

    it('accepts an upper-case hex name and stores it in lower case', async () => {
      const name = randomLogName();
      const upper = name.toUpperCase();
      expect(upper).not.toBe(name);
      const reply = await put(a.uploader, upper, Buffer.from('upper'), { acceptJson: true });
      expect(reply.status).toBe(201);
      expect(reply.json<LogFile>().name).toBe(name);
      expect(reply.header('location')).toBe(`${rt.baseUrl}/logdata/${name}`);
      expect((await metaOf(a.readOnly, upper)).name).toBe(name);
      expect((await metaOf(a.readOnly, name)).name).toBe(name);
      // The same name in lower case is the same file.
      expect((await put(a.uploader, name, Buffer.from('upper'), { acceptJson: true })).status).toBe(200);
      expect((await put(a.uploader, name, Buffer.from('lower'))).status).toBe(409);
      const list = await rt.http.get('/logdata', { auth: a.readOnly, query: { prefix: name.slice(0, 40) } });
      expect(list.json().items.map((f: LogFile) => f.name)).toEqual([name]);
    });

    it('stores the Content-Type sent and returns it on download; the default is application/octet-stream', async () => {
      const typed = randomLogName();
      const plain = randomLogName();
      const content = Buffer.from('{"level":"info"}\n');
      expect((await put(a.uploader, typed, content, { headers: { 'Content-Type': 'application/x-ndjson' } })).status).toBe(200);
      expect((await put(a.uploader, plain, content)).status).toBe(200);
      expect((await metaOf(a.readOnly, typed)).content_type).toBe('application/x-ndjson');
      expect((await metaOf(a.readOnly, plain)).content_type).toBe('application/octet-stream');

      const typedDownload = await download(a.readOnly, typed);
      expect(typedDownload.reply.status).toBe(200);
      expect(typedDownload.reply.contentType).toBe('application/x-ndjson');
      expect(typedDownload.reply.body.equals(content)).toBe(true);
      const plainDownload = await download(a.readOnly, plain);
      expect(plainDownload.reply.contentType).toBe('application/octet-stream');
    });

    it('a read-only token cannot upload: 403 missing scope logdata:write, nothing stored', async () => {
      const name = randomLogName();
      const reply = await put(a.readOnly, name, Buffer.from('x'));
      expectTextError(reply, 403, 'Forbidden', 'missing scope logdata:write');
      expectProblem(
        await put(a.readOnly, name, Buffer.from('x'), { acceptJson: true }),
        403,
        'Forbidden',
        'missing scope logdata:write',
        `/logdata/${name}`,
        'missing_scope',
      );
      expect((await meta(a.readOnly, name)).status).toBe(404);
    });
  });

  describe('names that are not 128 hex characters answer 400', () => {
    const cases: [string, () => string][] = [
      ['127 characters', () => randomLogName().slice(0, 127)],
      ['129 characters', () => randomLogName() + 'a'],
      ['a non-hex character', () => randomLogName().slice(0, 127) + 'g'],
    ];

    it.each(cases)('%s: on PUT, GET and HEAD /logdata/{name} and GET meta', async (_label, make) => {
      const name = make();
      expectTextError(await put(a.uploader, name, Buffer.from('x')), 400, 'Bad Request', BAD_NAME);
      expectTextError(await rt.http.get(`/logdata/${name}`, { auth: a.readOnly }), 400, 'Bad Request', BAD_NAME);
      expectProblem(await rt.http.get(`/logdata/${name}`, { auth: a.readOnly, acceptJson: true }), 400, 'Bad Request', BAD_NAME, `/logdata/${name}`);
      const head = await rt.http.head(`/logdata/${name}`, { auth: a.readOnly });
      expect(head.status).toBe(400);
      expect(head.body.length).toBe(0);
      expectProblem(await meta(a.readOnly, name), 400, 'Bad Request', BAD_NAME, `/logdata/${name}/meta`);
    });
  });

  describe('size limits', () => {
    const limitMessage = (limit: number) => `body larger than the limit of ${limit} bytes`;

    it('a declared Content-Length above 16 MiB answers 413 before the body is sent; nothing is stored', async () => {
      const name = randomLogName();
      const reply = await streamingRequest('PUT', `${rt.baseUrl}/logdata/${name}`, {
        headers: { Authorization: `Bearer ${a.uploader}` },
        declaredLength: LOGDATA_MAX_BYTES + 1,
        chunks: [randomContent(64 * 1024)], // the rest never follows: the answer must not wait for it
        timeoutMs: 20_000,
      });
      expectTextError(reply, 413, 'Payload Too Large', limitMessage(LOGDATA_MAX_BYTES));
      expect((await meta(a.readOnly, name)).status).toBe(404);
    });

    it('a declared Content-Length above the limit in JSON mode answers 413 problem+json', async () => {
      const name = randomLogName();
      const reply = await streamingRequest('PUT', `${rt.baseUrl}/logdata/${name}`, {
        headers: { Authorization: `Bearer ${a.uploader}`, Accept: 'application/json' },
        declaredLength: LOGDATA_MAX_BYTES + 1,
        chunks: [],
        timeoutMs: 20_000,
      });
      expectProblem(reply, 413, 'Payload Too Large', limitMessage(LOGDATA_MAX_BYTES), `/logdata/${name}`);
    });

    it('a chunked body without Content-Length that exceeds 16 MiB answers 413; nothing is stored', async () => {
      const name = randomLogName();
      const chunk = randomContent(1024 * 1024);
      function* chunks() {
        for (let i = 0; i < 18; i++) yield chunk; // 18 MiB
      }
      const reply = await streamingRequest('PUT', `${rt.baseUrl}/logdata/${name}`, {
        headers: { Authorization: `Bearer ${a.uploader}` },
        chunks: chunks(),
        timeoutMs: 60_000,
      });
      expectTextError(reply, 413, 'Payload Too Large', limitMessage(LOGDATA_MAX_BYTES));
      expect((await meta(a.readOnly, name)).status).toBe(404);
      const list = await rt.http.get('/logdata', { auth: a.readOnly, query: { prefix: name.slice(0, 32) } });
      expect(list.json().items).toEqual([]);
    });

    it('the sandbox takes at most 256 KiB (administrator acting with customer=<sandbox>)', async () => {
      const admin = await rt.adminToken();
      const query = { customer: rt.sandboxDomain };
      const tooLarge = randomLogName();
      const over = await rt.http.put(`/logdata/${tooLarge}`, { auth: admin, query, body: randomContent(LOGDATA_SANDBOX_MAX_BYTES + 1) });
      expectTextError(over, 413, 'Payload Too Large', limitMessage(LOGDATA_SANDBOX_MAX_BYTES));
      expect((await meta(admin, tooLarge, query)).status).toBe(404);

      const atLimit = randomLogName();
      const content = randomContent(LOGDATA_SANDBOX_MAX_BYTES);
      const ok = await rt.http.put(`/logdata/${atLimit}`, { auth: admin, query, body: content });
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('OK');
      const stored = await meta(admin, atLimit, query);
      expect(stored.status).toBe(200);
      expect(stored.json()).toMatchObject({ name: atLimit, size_bytes: LOGDATA_SANDBOX_MAX_BYTES, sha256: sha256(content) });
      // The file belongs to the sandbox, not to the administrator's own customer.
      expect((await meta(admin, atLimit)).status).toBe(404);
    });

    it('outside the sandbox a body above 256 KiB is fine', async () => {
      const name = randomLogName();
      const content = randomContent(LOGDATA_SANDBOX_MAX_BYTES + 1);
      expect((await put(a.uploader, name, content)).status).toBe(200);
      expect((await metaOf(a.readOnly, name)).size_bytes).toBe(LOGDATA_SANDBOX_MAX_BYTES + 1);
    });
  });

  describe('HEAD, GET and downloads', () => {
    let name: string;
    let content: Buffer;
    let record: LogFile;

    beforeAll(async () => {
      name = randomLogName();
      content = randomContent(5000);
      const reply = await put(a.uploader, name, content, { acceptJson: true, headers: { 'Content-Type': 'application/vnd.e2e.log' } });
      expect(reply.status).toBe(201);
      record = reply.json<LogFile>();
    });

    it('HEAD answers 200 with Content-Length, Content-Type, ETag (quoted SHA-256) and Last-Modified', async () => {
      const reply = await rt.http.head(`/logdata/${name}`, { auth: a.readOnly });
      expect(reply.status).toBe(200);
      expect(reply.body.length).toBe(0);
      expect(reply.header('content-length')).toBe('5000');
      expect(reply.header('content-type')).toBe('application/vnd.e2e.log');
      expect(reply.header('etag')).toBe(`"${sha256(content)}"`);
      const lastModified = reply.header('last-modified')!;
      expect(lastModified).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      expect(Date.parse(lastModified)).toBe(Math.floor(Date.parse(record.uploaded_at) / 1000) * 1000);
    });

    it('HEAD, GET and meta of an absent file answer 404', async () => {
      const absent = randomLogName();
      const head = await rt.http.head(`/logdata/${absent}`, { auth: a.readOnly });
      expect(head.status).toBe(404);
      expect(head.body.length).toBe(0);
      expectTextError(await rt.http.get(`/logdata/${absent}`, { auth: a.readOnly }), 404, 'Not Found', 'log file not found');
      expectProblem(await meta(a.readOnly, absent), 404, 'Not Found', 'log file not found', `/logdata/${absent}/meta`, 'log_file_not_found');
    });

    it("a problem's type is its code's entry on /docs/errors, which names the operations that answer it", async () => {
      const problem = (await meta(a.readOnly, randomLogName())).json<{ type: string; code: string }>();
      expect(problem.type).toBe(`${rt.baseUrl}/docs/errors#log_file_not_found`);
      const page = await rt.http.get(problem.type.slice(rt.baseUrl.length).split('#')[0]);
      expect(page.status).toBe(200);
      expect(page.contentType).toMatch(/^text\/html\b/);
      const entry = /<tr id="log_file_not_found">(.*?)<\/tr>/.exec(page.text)?.[1];
      expect(entry).toContain('<td>404</td>');
      expect(entry).toContain('log file not found');
      expect(entry).toContain('GET /logdata/{name}/meta');
    });

    it('/openapi.json lists the codes each log data operation may answer, per status', async () => {
      const doc = (await rt.http.get('/openapi.json')).json<{ paths: Record<string, Record<string, Record<string, unknown>>> }>();
      const upload = doc.paths['/logdata/{name}'].put as { 'x-error-codes': string[]; responses: Record<string, { 'x-error-codes'?: string[] }> };
      expect(upload['x-error-codes']).toContain('log_file_conflict');
      expect(upload.responses['409']['x-error-codes']).toEqual(['log_file_conflict']);
      expect(upload.responses['413']['x-error-codes']).toEqual(['log_file_too_large']);
      expect(
        (doc.paths['/logdata/{name}/meta'].get as { responses: Record<string, { 'x-error-codes'?: string[] }> }).responses['404']['x-error-codes'],
      ).toEqual(['log_file_not_found']);
    });

    it('GET answers 302 to a /dl link; following it gives the exact bytes', async () => {
      const redirect = await rt.http.get(`/logdata/${name}`, { auth: a.readOnly });
      expect(redirect.status).toBe(302);
      const location = redirect.header('location')!;
      expect(location.startsWith(`${rt.baseUrl}/dl/`)).toBe(true);
      const { reply } = await rt.http.follow(location);
      expect(reply.status).toBe(200);
      expect(reply.body.length).toBe(5000);
      expect(reply.body.equals(content)).toBe(true);
      expect(reply.contentType).toBe('application/vnd.e2e.log');
    });

    it('a Range request answers 206 with Content-Range and the requested bytes', async () => {
      const link = (await rt.http.get(`/logdata/${name}`, { auth: a.readOnly })).header('location')!;
      const middle = await rt.http.follow(link, { range: 'bytes=100-1099' });
      expect(middle.reply.status).toBe(206);
      expect(middle.reply.header('content-range')).toBe('bytes 100-1099/5000');
      expect(middle.reply.body.equals(content.subarray(100, 1100))).toBe(true);

      const rest = await rt.http.follow(link, { range: 'bytes=4990-' });
      expect(rest.reply.status).toBe(206);
      expect(rest.reply.header('content-range')).toBe('bytes 4990-4999/5000');
      expect(rest.reply.body.equals(content.subarray(4990))).toBe(true);
    });

    it('a download increments download_count and sets last_accessed_at; HEAD on the link does not count', async () => {
      const fresh = randomLogName();
      const bytes = randomContent(777);
      expect((await put(a.uploader, fresh, bytes)).status).toBe(200);
      const initial = await metaOf(a.readOnly, fresh);
      expect(initial.download_count).toBe(0);
      expect(initial.last_accessed_at).toBeNull();

      const link = (await rt.http.get(`/logdata/${fresh}`, { auth: a.readOnly })).header('location')!;
      for (let i = 0; i < 2; i++) {
        const head = await rt.http.follow(link, { method: 'HEAD' });
        expect(head.reply.status).toBe(200);
        expect(head.reply.header('content-length')).toBe('777');
        expect(head.reply.body.length).toBe(0);
      }
      // GET /logdata/{name} itself (the 302) is not a download either.
      expect((await rt.http.get(`/logdata/${fresh}`, { auth: a.readOnly })).status).toBe(302);

      const first = await rt.http.follow(link);
      expect(first.reply.body.equals(bytes)).toBe(true);
      const afterOne = await eventually(
        () => metaOf(a.readOnly, fresh),
        (m) => m.download_count >= 1,
        { timeoutMs: 10_000 },
      );
      await sleep(500); // a late count of the HEADs would show now
      const settled = await metaOf(a.readOnly, fresh);
      expect(settled.download_count).toBe(1);
      expect(afterOne.last_accessed_at).not.toBeNull();
      expect(settled.last_accessed_at).toMatch(RFC3339);
      expect(Date.parse(settled.last_accessed_at!)).toBeGreaterThanOrEqual(Date.parse(initial.uploaded_at));
      expect(settled).toMatchObject({ name: fresh, sha256: initial.sha256, uploaded_at: initial.uploaded_at });

      await rt.http.follow(link);
      const afterTwo = await eventually(
        () => metaOf(a.readOnly, fresh),
        (m) => m.download_count >= 2,
        { timeoutMs: 10_000 },
      );
      expect(afterTwo.download_count).toBe(2);
    });
  });

  describe('list', () => {
    it('is sorted by name, filtered by prefix, and paged with limit/offset/next_offset', async () => {
      const prefix = hexPrefix(10);
      const names = Array.from({ length: 5 }, () => randomLogName(prefix));
      for (const name of names) expect((await put(a.uploader, name, randomContent(100))).status).toBe(200);
      const sorted = [...names].sort();

      const all = await rt.http.get('/logdata', { auth: a.readOnly, query: { prefix } });
      expect(all.status).toBe(200);
      expect(all.contentType).toMatch(/^application\/json\b/);
      const body = all.json<{ items: LogFile[]; next_offset: number | null }>();
      expect(body.items.map((f) => f.name)).toEqual(sorted);
      expect(body.next_offset).toBeNull();
      expect(body.items[0]).toEqual({
        name: sorted[0],
        size_bytes: 100,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        content_type: 'application/octet-stream',
        uploaded_at: expect.stringMatching(RFC3339),
        uploaded_by: `token:${a.tokens.uploader.id}`,
        download_count: 0,
        last_accessed_at: null,
      });

      const page1 = (await rt.http.get('/logdata', { auth: a.readOnly, query: { prefix, limit: 2 } })).json();
      expect(page1.items.map((f: LogFile) => f.name)).toEqual(sorted.slice(0, 2));
      expect(page1.next_offset).toBe(2);
      const page2 = (await rt.http.get('/logdata', { auth: a.readOnly, query: { prefix, limit: 2, offset: page1.next_offset } })).json();
      expect(page2.items.map((f: LogFile) => f.name)).toEqual(sorted.slice(2, 4));
      expect(page2.next_offset).toBe(4);
      const page3 = (await rt.http.get('/logdata', { auth: a.readOnly, query: { prefix, limit: 2, offset: page2.next_offset } })).json();
      expect(page3.items.map((f: LogFile) => f.name)).toEqual(sorted.slice(4));
      expect(page3.next_offset).toBeNull();
    });

    it('without a prefix lists every file of the customer in name order', async () => {
      const reply = await rt.http.get('/logdata', { auth: b.readOnly, query: { limit: 500 } });
      expect(reply.status).toBe(200);
      const before = reply.json().items.length;
      const names = [randomLogName(), randomLogName(), randomLogName()];
      for (const name of names) expect((await put(b.uploader, name, randomContent(10))).status).toBe(200);
      const items: LogFile[] = (await rt.http.get('/logdata', { auth: b.readOnly, query: { limit: 500 } })).json().items;
      expect(items).toHaveLength(before + 3);
      expect(items.map((f) => f.name)).toEqual(items.map((f) => f.name).sort());
      expect(items.map((f) => f.name)).toEqual(expect.arrayContaining(names));
    });

    it('filters by uploaded_after and uploaded_before', async () => {
      const prefix = hexPrefix(12);
      const early = [randomLogName(prefix), randomLogName(prefix)];
      const late = [randomLogName(prefix), randomLogName(prefix), randomLogName(prefix)];
      const start = new Date(Date.now() - 1000).toISOString();
      for (const name of early) expect((await put(a.uploader, name, randomContent(10))).status).toBe(200);
      await sleep(1100);
      const cut = new Date().toISOString();
      await sleep(1100);
      for (const name of late) expect((await put(a.uploader, name, randomContent(10))).status).toBe(200);

      const names = async (query: Record<string, string>) => {
        const reply = await rt.http.get('/logdata', { auth: a.readOnly, query: { prefix, ...query } });
        expect(reply.status).toBe(200);
        return reply.json().items.map((f: LogFile) => f.name);
      };
      expect(await names({ uploaded_after: cut })).toEqual([...late].sort());
      expect(await names({ uploaded_before: cut })).toEqual([...early].sort());
      expect(await names({ uploaded_after: start, uploaded_before: cut })).toEqual([...early].sort());
      expect(await names({ uploaded_after: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
    });

    it.each([
      [{ limit: '0' }, 'limit must be an integer from 1 to 500'],
      [{ limit: '501' }, 'limit must be an integer from 1 to 500'],
      [{ limit: 'ten' }, 'limit must be an integer from 1 to 500'],
      [{ offset: '-1' }, 'offset must be an integer from 0 to 9007199254740991'],
      [{ uploaded_after: 'yesterday' }, 'uploaded_after must be an RFC 3339 timestamp'],
      [{ uploaded_before: '2026-13-45' }, 'uploaded_before must be an RFC 3339 timestamp'],
      [{ prefix: 'xyz' }, 'prefix must be hex characters (at most 128)'],
    ])('%j answers 400: %s', async (query, detail) => {
      expectProblem(await rt.http.get('/logdata', { auth: a.readOnly, query }), 400, 'Bad Request', detail, '/logdata', 'invalid_request');
    });

    it('accepts the limit bounds 1 and 500', async () => {
      const one = await rt.http.get('/logdata', { auth: a.readOnly, query: { limit: 1 } });
      expect(one.status).toBe(200);
      expect(one.json().items).toHaveLength(1);
      expect(one.json().next_offset).toBe(1);
      expect((await rt.http.get('/logdata', { auth: a.readOnly, query: { limit: 500 } })).status).toBe(200);
    });
  });

  describe('concurrent uploads under one new name', () => {
    const N = 8;

    it('different contents: exactly one wins (200), the others get 409, and the stored bytes are the winner', async () => {
      const name = randomLogName();
      const contents = Array.from({ length: N }, () => randomContent(64 * 1024));
      const replies = await Promise.all(contents.map((content) => put(a.uploader, name, content)));
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(N - 1);
      const winner = contents[statuses.indexOf(200)];
      expect((await metaOf(a.readOnly, name)).sha256).toBe(sha256(winner));
      const { reply } = await download(a.readOnly, name);
      expect(reply.body.equals(winner)).toBe(true);
    });

    it('different contents in JSON mode: exactly one 201, the others 409', async () => {
      const name = randomLogName();
      const contents = Array.from({ length: N }, () => randomContent(16 * 1024));
      const replies = await Promise.all(contents.map((content) => put(a.uploader, name, content, { acceptJson: true })));
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(N - 1);
      const winner = replies[statuses.indexOf(201)].json<LogFile>();
      expect(await metaOf(a.readOnly, name)).toEqual(winner);
    });

    it('identical contents: every upload succeeds and one file is stored', async () => {
      const name = randomLogName();
      const content = randomContent(64 * 1024);
      const replies = await Promise.all(Array.from({ length: N }, () => put(a.uploader, name, content)));
      expect(replies.map((r) => `${r.status} ${r.text}`)).toEqual(Array(N).fill('200 OK'));
      expect((await metaOf(a.readOnly, name)).sha256).toBe(sha256(content));
    });

    it('identical contents in JSON mode: one 201 and the others 200 with the same record', async () => {
      const name = randomLogName();
      const content = randomContent(8 * 1024);
      const replies = await Promise.all(Array.from({ length: N }, () => put(a.uploader, name, content, { acceptJson: true })));
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(N - 1);
      const record = replies[0].json<LogFile>();
      for (const reply of replies) expect(reply.json()).toEqual(record);
    });
  });

  describe('tenant isolation', () => {
    let name: string;
    let content: Buffer;

    beforeAll(async () => {
      name = randomLogName();
      content = randomContent(300);
      expect((await put(a.uploader, name, content)).status).toBe(200);
    });

    it("another customer's token cannot see the file: 404", async () => {
      expectProblem(await meta(b.full, name), 404, 'Not Found', 'log file not found', `/logdata/${name}/meta`);
      expectTextError(await rt.http.get(`/logdata/${name}`, { auth: b.full }), 404, 'Not Found', 'log file not found');
      expect((await rt.http.head(`/logdata/${name}`, { auth: b.full })).status).toBe(404);
      const list = await rt.http.get('/logdata', { auth: b.full, query: { prefix: name.slice(0, 32) } });
      expect(list.json().items).toEqual([]);
    });

    it('names are unique per customer: the other customer may store other bytes under the same name', async () => {
      const other = randomContent(300);
      expect((await put(b.uploader, name, other)).status).toBe(200);
      expect((await metaOf(b.readOnly, name)).sha256).toBe(sha256(other));
      expect((await metaOf(a.readOnly, name)).sha256).toBe(sha256(content));
    });

    it('an administrator reaches the file with customer=<domain>', async () => {
      const admin = await rt.adminToken();
      const reply = await meta(admin, name, { customer: a.domain });
      expect(reply.status).toBe(200);
      expect(reply.json()).toEqual(await metaOf(a.readOnly, name));
      const redirect = await rt.http.get(`/logdata/${name}`, { auth: admin, query: { customer: a.domain } });
      expect(redirect.status).toBe(302);
      expect((await rt.http.follow(redirect.header('location')!)).reply.body.equals(content)).toBe(true);
      // Without customer= the administrator acts on the operator's customer, which lacks the file.
      expect((await meta(admin, name)).status).toBe(404);
    });

    it('a non-administrator naming another customer gets 404 customer not found', async () => {
      expectProblem(await meta(b.full, name, { customer: a.domain }), 404, 'Not Found', 'customer not found', `/logdata/${name}/meta`, 'customer_not_found');
      expectTextError(await rt.http.get(`/logdata/${name}`, { auth: b.full, query: { customer: a.domain } }), 404, 'Not Found', 'customer not found');
      expectTextError(
        await rt.http.put(`/logdata/${randomLogName()}`, { auth: b.full, query: { customer: a.domain }, body: Buffer.from('x') }),
        404,
        'Not Found',
        'customer not found',
      );
      // Naming one's own customer is fine.
      expect((await meta(a.readOnly, name, { customer: a.domain })).status).toBe(200);
    });
  });
});
