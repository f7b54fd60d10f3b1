import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FIRMWARE_MAX_BYTES } from './support/constants.js';
import { eventually } from './support/factories.js';
import { binaryWith, type FirmwareBuild, multipart, noise, productLine, sha256, uploadFirmware } from './support/firmware.js';
import { type HttpReply, streamingRequest } from './support/http.js';
import { expectProblem } from './support/problems.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/** docs/api.md "Uploading a build" (all three paths), what strings, POST /firmware/parse, downloads. */

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function expectTextError(reply: HttpReply, status: number, reason: string, message: string | RegExp): void {
  expect(reply.status).toBe(status);
  expect(reply.contentType).toMatch(/^text\/plain\b/);
  const line = reply.text.trimEnd();
  expect(line).not.toContain('\n');
  expect(line.startsWith(`${status} ${reason}: `)).toBe(true);
  const message_ = line.slice(`${status} ${reason}: `.length);
  if (typeof message === 'string') expect(message_).toBe(message);
  else expect(message_).toMatch(message);
}

describe('firmware uploads', () => {
  let rt: Runtime;
  let a: CustomerFixture;
  let b: CustomerFixture;

  const list = async (token: string, query: Record<string, string> = {}) => {
    const reply = await rt.http.get('/firmware', { auth: token, query });
    expect(reply.status).toBe(200);
    return reply.json<{ items: FirmwareBuild[]; next_offset: number | null }>().items;
  };
  const byPath = (line: { hw: string; rev: string; fw: string }) => `/firmware/${line.hw}/${line.rev}/${line.fw}`;

  beforeAll(async () => {
    rt = await startRuntime();
    a = await rt.newCustomer();
    b = await rt.newCustomer();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  describe('the three paths', () => {
    it('PUT /firmware with the names in the query answers the text OK and stores the build', async () => {
      const line = productLine();
      const firmware = binaryWith(['1.0.0, 2026-11-20T10:00:00Z, AFI']);
      const reply = await uploadFirmware(rt, a.uploader, { path: '/firmware', query: { hw_name: line.hw, hw_version: line.rev, fw_name: line.fw }, firmware });
      expect(reply.status).toBe(200);
      expect(reply.contentType).toMatch(/^text\/plain\b/);
      expect(reply.text.trim()).toBe('OK');
      const [stored] = await list(a.readOnly, { hw_name: line.hw });
      expect(stored).toMatchObject({
        hw_name: line.hw,
        hw_version: line.rev,
        fw_name: line.fw,
        fw_version: '1.0.0',
        fw_type: 'AFI',
        build_date: '2026-11-20T10:00:00.000Z',
        tags: [],
        tag_filter_disabled: false,
        status: 'active',
        general_release: false,
        size_bytes: firmware.length,
        sha256: sha256(firmware),
        what_string: '1.0.0, 2026-11-20T10:00:00Z, AFI',
        notes: null,
        uploaded_by: `token:${a.tokens.uploader.id}`,
        download_count: 0,
        notes_download_count: 0,
      });
      expect(stored.uploaded_at).toMatch(RFC3339);
      expect(stored.id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('PUT /firmware/ (trailing slash) is the same upload', async () => {
      const line = productLine();
      const reply = await uploadFirmware(rt, a.uploader, {
        path: '/firmware/',
        query: { hw_name: line.hw, hw_version: line.rev, fw_name: line.fw },
        firmware: binaryWith(['2.0, 2026-11-20, EFI']),
        acceptJson: true,
      });
      expect(reply.status).toBe(201);
      expect(reply.json<FirmwareBuild>()).toMatchObject({ hw_name: line.hw, fw_version: '2.0', fw_type: 'EFI', build_date: '2026-11-20T00:00:00.000Z' });
    });

    it('PUT /firmware/{hw_name}/{hw_version}/{fw_name} takes the names from the path (percent-decoded per segment)', async () => {
      const line = { hw: 'board/x?#%', rev: 'rev 1'.replace(' ', '+'), fw: `fw-${Date.now()}` };
      const path = `/firmware/${encodeURIComponent(line.hw)}/${encodeURIComponent(line.rev)}/${encodeURIComponent(line.fw)}`;
      const reply = await uploadFirmware(rt, a.uploader, { path, firmware: binaryWith(['3.1, 2026-11-20T10:00:00+02:00, MFI']), acceptJson: true });
      expect(reply.status).toBe(201);
      expect(reply.json<FirmwareBuild>()).toMatchObject({
        hw_name: 'board/x?#%',
        hw_version: 'rev+1',
        fw_name: line.fw,
        fw_type: 'MFI',
        build_date: '2026-11-20T08:00:00.000Z',
      });
    });

    it('a first segment that is no build id followed by `tags` is still the upload path form', async () => {
      const line = { hw: `hw${Date.now()}`, rev: 'tags', fw: 'beta' };
      const reply = await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware: binaryWith(['1.0, 2026-11-20, AFI']), acceptJson: true });
      expect(reply.status).toBe(201);
      expect(reply.json<FirmwareBuild>()).toMatchObject({ hw_name: line.hw, hw_version: 'tags', fw_name: 'beta' });
      // GET on that path is no endpoint: only PUT exists there.
      const get = await rt.http.get(byPath(line), { auth: a.readOnly });
      expect(get.status).toBe(405);
      expect(get.header('allow')).toBe('PUT');
    });
  });

  describe('JSON mode and write-once', () => {
    it('201 with the record and Location for a new build; 200 with the stored record for an identical re-upload', async () => {
      const line = productLine();
      const firmware = binaryWith(['5.0, 2026-11-20T10:00:00Z, AFI']);
      const first = await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware, notes: 'first notes', acceptJson: true });
      expect(first.status).toBe(201);
      const created = first.json<FirmwareBuild>();
      expect(first.header('location')).toBe(`${rt.baseUrl}/firmware/${created.id}`);
      const get = await rt.http.get(`/firmware/${created.id}`, { auth: a.readOnly });
      expect(get.json()).toEqual(created);

      const again = await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware, notes: 'other notes', acceptJson: true });
      expect(again.status).toBe(200);
      expect(again.header('location')).toBeNull();
      expect(again.json()).toEqual(created); // nothing changed, also not the notes
      const text = await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware });
      expect(text.status).toBe(200);
      expect(text.text.trim()).toBe('OK');
      expect(await list(a.readOnly, { hw_name: line.hw })).toHaveLength(1);
    });

    it('the same identity with other bytes is 409, in text and in JSON', async () => {
      const line = productLine();
      await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware: binaryWith(['6.0, 2026-11-20, AFI']) });
      const other = binaryWith(['6.0, 2026-11-20, AFI']);
      const text = await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware: other });
      expectTextError(text, 409, 'Conflict', 'a build with this hw_name, hw_version, fw_name, fw_version and fw_type already exists with different content');
      const json = await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware: other, acceptJson: true });
      expect(json.status).toBe(409);
      expect(json.contentType).toMatch(/^application\/problem\+json/);
      expect(json.json()).toMatchObject({ status: 409, title: 'Conflict', instance: byPath(line), code: 'build_conflict' });
      // another fw_type is another build
      const efi = await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware: binaryWith(['6.0, 2026-11-20, EFI']) });
      expect(efi.status).toBe(200);
    });

    it('concurrent uploads of one identity: one build, the others identical re-uploads or 409', async () => {
      const line = productLine();
      const same = binaryWith(['7.0, 2026-11-20, AFI']);
      const replies = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          uploadFirmware(rt, a.uploader, { path: byPath(line), firmware: i < 3 ? same : binaryWith(['7.0, 2026-11-20, AFI']), acceptJson: true }),
        ),
      );
      const stored = await list(a.readOnly, { hw_name: line.hw });
      expect(stored).toHaveLength(1);
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const reply of replies) {
        if (reply.status === 409) continue;
        expect([200, 201]).toContain(reply.status);
        expect(reply.json<FirmwareBuild>().id).toBe(stored[0].id);
      }
    });

    it('builds of one customer are invisible to another', async () => {
      const line = productLine();
      const created = (
        await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware: binaryWith(['1.0, 2026-11-20, AFI']), acceptJson: true })
      ).json<FirmwareBuild>();
      expect((await rt.http.get(`/firmware/${created.id}`, { auth: b.readOnly })).status).toBe(404);
      expect(await list(b.readOnly, { hw_name: line.hw })).toEqual([]);
      // the same identity is free in the other customer
      expect((await uploadFirmware(rt, b.uploader, { path: byPath(line), firmware: binaryWith(['1.0, 2026-11-20, AFI']), acceptJson: true })).status).toBe(201);
    });
  });

  describe('values: path, then query, then the what string', () => {
    it('a path value and a different query value: 400', async () => {
      const line = productLine();
      const reply = await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { hw_name: 'other' }, firmware: binaryWith(['1.0, 2026-11-20, AFI']) });
      expectTextError(reply, 400, 'Bad Request', `hw_name differs between the path (${line.hw}) and the query (other)`);
      expectProblem(
        await uploadFirmware(rt, a.uploader, {
          path: byPath(line),
          query: { hw_name: 'other' },
          firmware: binaryWith(['1.0, 2026-11-20, AFI']),
          acceptJson: true,
        }),
        400,
        { detail: `hw_name differs between the path (${line.hw}) and the query (other)`, code: 'build_value_mismatch' },
      );
      const agree = await uploadFirmware(rt, a.uploader, {
        path: byPath(line),
        query: { hw_name: line.hw, fw_name: line.fw },
        firmware: binaryWith(['1.0, 2026-11-20, AFI']),
      });
      expect(agree.status).toBe(200);
    });

    it('hw_name, hw_version or fw_name missing: 400', async () => {
      for (const missing of ['hw_name', 'hw_version', 'fw_name']) {
        const query: Record<string, string> = { hw_name: 'h', hw_version: 'v', fw_name: 'f' };
        delete query[missing];
        const reply = await uploadFirmware(rt, a.uploader, { query, firmware: binaryWith(['1.0, 2026-11-20, AFI']) });
        expectTextError(reply, 400, 'Bad Request', `${missing} is required (in the path or the query)`);
      }
      const json = await uploadFirmware(rt, a.uploader, {
        query: { hw_name: 'h', hw_version: 'v' },
        firmware: binaryWith(['1.0, 2026-11-20, AFI']),
        acceptJson: true,
      });
      expectProblem(json, 400, { detail: 'fw_name is required (in the path or the query)', code: 'build_value_missing' });
    });

    it('query values that agree with the what string are accepted; contradicting ones are 422', async () => {
      const line = productLine();
      const firmware = binaryWith(['8.1, 2026-11-20T10:00:00Z, EFI']);
      const ok = await uploadFirmware(rt, a.uploader, {
        path: byPath(line),
        query: { fw_version: '8.1', fw_type: 'EFI', build_date: '2026-11-20T11:00:00+01:00' },
        firmware,
        acceptJson: true,
      });
      expect(ok.status).toBe(201);
      for (const [query, message] of [
        [{ fw_version: '8.2' }, 'fw_version 8.2 contradicts the what string (8.1)'],
        [{ fw_type: 'AFI' }, 'fw_type AFI contradicts the what string (EFI)'],
        [{ build_date: '2026-11-21T10:00:00Z' }, 'build_date 2026-11-21T10:00:00.000Z contradicts the what string (2026-11-20T10:00:00.000Z)'],
      ] as const) {
        expectTextError(await uploadFirmware(rt, a.uploader, { path: byPath(productLine()), query, firmware }), 422, 'Unprocessable Entity', message);
        const json = await uploadFirmware(rt, a.uploader, { path: byPath(productLine()), query, firmware, acceptJson: true });
        expectProblem(json, 422, { detail: message, code: 'what_string_contradicted' });
      }
    });

    it('no what string: fw_version from the query (422 without), fw_type AFI and build_date now by default', async () => {
      const line = productLine();
      const plain = noise(3000);
      expectTextError(
        await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware: plain }),
        422,
        'Unprocessable Entity',
        /no what string .* fw_version is missing/,
      );
      expectProblem(await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware: plain, acceptJson: true }), 422, {
        detail: /no what string .* fw_version is missing/,
        code: 'what_string_missing',
      });
      const before = Date.now();
      const reply = await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { fw_version: '0.9-rc1' }, firmware: plain, acceptJson: true });
      expect(reply.status).toBe(201);
      const build = reply.json<FirmwareBuild>();
      expect(build).toMatchObject({ fw_version: '0.9-rc1', fw_type: 'AFI', what_string: null });
      expect(Date.parse(build.build_date)).toBeGreaterThanOrEqual(before - 5_000);
      const given = await uploadFirmware(rt, a.uploader, {
        path: byPath(line),
        query: { fw_version: '0.9', fw_type: 'MFI', build_date: '2025-01-02T03:04:05Z' },
        firmware: noise(10),
        acceptJson: true,
      });
      expect(given.json<FirmwareBuild>()).toMatchObject({ fw_version: '0.9', fw_type: 'MFI', build_date: '2025-01-02T03:04:05.000Z' });
    });

    it('bad query values are 400', async () => {
      // The query's schema refuses them at the gateway (invalid_request, the schema's texts).
      const line = productLine();
      expectProblem(await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { fw_type: 'XFI' }, firmware: noise(10), acceptJson: true }), 400, {
        detail: 'fw_type must be AFI, EFI or MFI',
        code: 'invalid_request',
      });
      expectProblem(
        await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { build_date: 'yesterday' }, firmware: noise(10), acceptJson: true }),
        400,
        {
          detail: 'build_date must be an RFC 3339 timestamp',
          code: 'invalid_request',
        },
      );
      expectProblem(await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { what_index: '-1' }, firmware: noise(10), acceptJson: true }), 400, {
        detail: 'what_index must be a non-negative integer',
        code: 'invalid_request',
      });
      expectProblem(
        await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { general_release: 'maybe' }, firmware: noise(10), acceptJson: true }),
        400,
        {
          detail: 'general_release must be true or false',
          code: 'invalid_request',
        },
      );
    });
  });

  describe('what strings', () => {
    it('what_index chooses among several (from 0); out of range and unparseable ones are 422', async () => {
      const line = productLine();
      const firmware = binaryWith(['lib 1.0 (c) vendor', '4.0.1, 2026-11-20T10:00:00Z, AFI', '4.0.2, 2026-11-21T10:00:00Z, EFI']);
      expectTextError(await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware }), 422, 'Unprocessable Entity', /^what string 0 cannot be parsed/);
      expectProblem(await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware, acceptJson: true }), 422, {
        detail: /^what string 0 cannot be parsed/,
        code: 'what_string_unparsable',
      });
      const second = await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { what_index: 2 }, firmware, acceptJson: true });
      expect(second.json<FirmwareBuild>()).toMatchObject({ fw_version: '4.0.2', fw_type: 'EFI', what_string: '4.0.2, 2026-11-21T10:00:00Z, EFI' });
      const first = await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { what_index: 1 }, firmware, acceptJson: true });
      expect(first.json<FirmwareBuild>()).toMatchObject({ fw_version: '4.0.1', fw_type: 'AFI' });
      expectProblem(await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { what_index: 3 }, firmware, acceptJson: true }), 422, {
        detail: 'what_index 3 is out of range: the binary has 3 what strings',
        code: 'what_index_out_of_range',
      });
      expectTextError(
        await uploadFirmware(rt, a.uploader, { path: byPath(line), query: { what_index: 0, fw_version: '1' }, firmware: noise(100) }),
        422,
        'Unprocessable Entity',
        'what_index 0 is out of range: the binary has no what string',
      );
    });

    it('finds a what string at the very end of the binary, and one straddling 64 KiB boundaries of a larger binary', async () => {
      const end = Buffer.concat([noise(70_000), Buffer.from('@(#)9.0, 2026-11-20, AFI', 'latin1')]);
      const reply = await uploadFirmware(rt, a.uploader, { path: byPath(productLine()), firmware: end, acceptJson: true });
      expect(reply.json<FirmwareBuild>()).toMatchObject({ fw_version: '9.0', size_bytes: 70_024 });
      for (const at of [65_534, 131_071]) {
        const data = Buffer.concat([noise(at), Buffer.from('@(#)9.1, 2026-11-20, AFI\0', 'latin1'), noise(200_000)]);
        const straddling = await uploadFirmware(rt, a.uploader, { path: byPath(productLine()), firmware: data, acceptJson: true });
        expect(straddling.json<FirmwareBuild>()).toMatchObject({ fw_version: '9.1', sha256: sha256(data) });
      }
    });

    it('POST /firmware/parse answers what was found and stores nothing', async () => {
      const firmware = binaryWith(['1.2.3, 2026-11-20T10:00:00Z, AFI', 'not a version string', '2.0, 2026-02-30, AFI']);
      const { body, contentType } = multipart([{ name: 'firmware', data: firmware, filename: 'fw.bin', contentType: 'application/octet-stream' }]);
      const before = await list(a.readOnly);
      const reply = await rt.http.post('/firmware/parse', { auth: a.readOnly, body, headers: { 'content-type': contentType } });
      expect(reply.status).toBe(200);
      const result = reply.json();
      expect(result).toMatchObject({ size_bytes: firmware.length, sha256: sha256(firmware), total: 3 });
      expect(result.what_strings).toEqual([
        {
          index: 0,
          offset: 64,
          text: '1.2.3, 2026-11-20T10:00:00Z, AFI',
          fw_version: '1.2.3',
          build_date: '2026-11-20T10:00:00.000Z',
          fw_type: 'AFI',
          error: null,
        },
        expect.objectContaining({
          index: 1,
          text: 'not a version string',
          fw_version: null,
          build_date: null,
          fw_type: null,
          error: expect.stringContaining('comma-separated'),
        }),
        expect.objectContaining({ index: 2, text: '2.0, 2026-02-30, AFI', fw_version: null, error: expect.stringContaining('build_date') }),
      ]);
      expect(await list(a.readOnly)).toEqual(before);
      const none = multipart([{ name: 'notes', data: 'x', filename: 'n.txt' }]);
      const missing = await rt.http.post('/firmware/parse', { auth: a.readOnly, body: none.body, headers: { 'content-type': none.contentType } });
      expectProblem(missing, 400, { detail: 'multipart part firmware is required', code: 'multipart_part_missing' });
    });
  });

  describe('multipart and limits', () => {
    it('parts: firmware required; notes optional (file or plain field); other parts ignored; a part twice is 400', async () => {
      const line = productLine();
      const firmware = binaryWith(['1.0, 2026-11-20, AFI']);
      const noFirmware = multipart([{ name: 'notes', data: 'n', filename: 'n.txt' }]);
      expectTextError(
        await rt.http.put(byPath(line), { auth: a.uploader, body: noFirmware.body, headers: { 'content-type': noFirmware.contentType } }),
        400,
        'Bad Request',
        'multipart part firmware is required',
      );
      const twice = multipart([
        { name: 'firmware', data: firmware, filename: 'a.bin' },
        { name: 'firmware', data: firmware, filename: 'b.bin' },
      ]);
      expectTextError(
        await rt.http.put(byPath(line), { auth: a.uploader, body: twice.body, headers: { 'content-type': twice.contentType } }),
        400,
        'Bad Request',
        'multipart part firmware appears more than once',
      );
      const withField = multipart([
        { name: 'comment', data: 'ignored' },
        { name: 'firmware', data: firmware, filename: 'fw.bin' },
        { name: 'extra', data: noise(1000), filename: 'x.bin' },
        { name: 'notes', data: 'Fixed the bootloader.\nÄnderungen: keine.' },
      ]);
      const reply = await rt.http.put(byPath(line), {
        auth: a.uploader,
        body: withField.body,
        headers: { 'content-type': withField.contentType },
        acceptJson: true,
      });
      expect(reply.status).toBe(201);
      const build = reply.json<FirmwareBuild>();
      const notes = Buffer.from('Fixed the bootloader.\nÄnderungen: keine.', 'utf8');
      expect(build.notes).toEqual({ size_bytes: notes.length, sha256: sha256(notes) });
    });

    it('a body that is not multipart/form-data is 415; a broken one is 400', async () => {
      const line = productLine();
      expectTextError(
        await rt.http.put(byPath(line), { auth: a.uploader, body: 'raw', headers: { 'content-type': 'application/octet-stream' } }),
        415,
        'Unsupported Media Type',
        'body must be multipart/form-data',
      );
      const broken = await rt.http.put(byPath(line), {
        auth: a.uploader,
        body: '--x\r\nContent-Disposition: form-data; name="firmware"; filename="a"\r\n\r\nabc',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      });
      expect(broken.status).toBe(400);
    });

    it('413 before anything is read when Content-Length is above the limit', async () => {
      const line = productLine();
      const reply = await streamingRequest('PUT', `${rt.baseUrl}${byPath(line)}`, {
        headers: { authorization: `Bearer ${a.uploader}`, 'content-type': 'multipart/form-data; boundary=x' },
        chunks: [Buffer.from('--x\r\n')],
        declaredLength: FIRMWARE_MAX_BYTES * 4,
      });
      expectTextError(reply, 413, 'Payload Too Large', /^upload larger than the limit of \d+ bytes$/);
    });

    it('413 when the firmware streamed (chunked) grows past FIRMWARE_MAX_BYTES, and for notes above 1 MiB', async () => {
      const line = productLine();
      const boundary = 'bigboundary';
      async function* body(size: number, name: string) {
        yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="x"\r\n\r\n`);
        const chunk = noise(256 * 1024);
        for (let sent = 0; sent < size; sent += chunk.length) yield chunk;
        yield Buffer.from(`\r\n--${boundary}--\r\n`);
      }
      const reply = await streamingRequest('PUT', `${rt.baseUrl}${byPath(line)}`, {
        headers: { authorization: `Bearer ${a.uploader}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        chunks: body(FIRMWARE_MAX_BYTES + 512 * 1024, 'firmware'),
      });
      expectTextError(reply, 413, 'Payload Too Large', `firmware larger than the limit of ${FIRMWARE_MAX_BYTES} bytes`);
      const notes = await uploadFirmware(rt, a.uploader, {
        path: byPath(line),
        firmware: binaryWith(['1.0, 2026-11-20, AFI']),
        notes: Buffer.alloc(1024 * 1024 + 1, 'n'),
      });
      expectTextError(notes, 413, 'Payload Too Large', `notes larger than the limit of ${1024 * 1024} bytes`);
      const notesJson = await uploadFirmware(rt, a.uploader, {
        path: byPath(line),
        firmware: binaryWith(['1.0, 2026-11-20, AFI']),
        notes: Buffer.alloc(1024 * 1024 + 1, 'n'),
        acceptJson: true,
      });
      expectProblem(notesJson, 413, { detail: `notes larger than the limit of ${1024 * 1024} bytes`, code: 'upload_too_large' });
      const parse = await streamingRequest('POST', `${rt.baseUrl}/firmware/parse`, {
        headers: { authorization: `Bearer ${a.readOnly}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        chunks: body(FIRMWARE_MAX_BYTES + 512 * 1024, 'firmware'),
      });
      expect(parse.status).toBe(413);
      expect(await list(a.readOnly, { hw_name: line.hw })).toEqual([]);
    });

    it('a firmware of exactly FIRMWARE_MAX_BYTES is accepted', async () => {
      const data = Buffer.concat([Buffer.from('@(#)1.0, 2026-11-20, AFI\0', 'latin1'), noise(FIRMWARE_MAX_BYTES - 25)]);
      expect(data.length).toBe(FIRMWARE_MAX_BYTES);
      const reply = await uploadFirmware(rt, a.uploader, { path: byPath(productLine()), firmware: data, acceptJson: true });
      expect(reply.status).toBe(201);
      expect(reply.json<FirmwareBuild>().sha256).toBe(sha256(data));
    });
  });

  describe('access', () => {
    it('needs fw:write (403 for a read-only token) and credentials (401)', async () => {
      const line = productLine();
      const ro = await uploadFirmware(rt, a.readOnly, { path: byPath(line), firmware: binaryWith(['1.0, 2026-11-20, AFI']) });
      expectTextError(ro, 403, 'Forbidden', 'missing scope fw:write');
      const anonymous = await rt.http.put(byPath(line), { body: 'x', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
      expect(anonymous.status).toBe(401);
    });

    it('an administrator uploads for a customer with customer=', async () => {
      const line = productLine();
      const reply = await uploadFirmware(rt, await rt.adminToken(), {
        path: byPath(line),
        query: { customer: a.domain },
        firmware: binaryWith(['1.0, 2026-11-20, AFI']),
        acceptJson: true,
      });
      expect(reply.status).toBe(201);
      expect(await list(a.readOnly, { hw_name: line.hw })).toHaveLength(1);
    });
  });

  describe('downloads', () => {
    it('binary and notes: 302 to 5-minute /dl links with the right bytes and types; downloads are counted', async () => {
      const line = productLine();
      const firmware = binaryWith(['1.0, 2026-11-20, AFI'], { noise: 5000 });
      const created = (
        await uploadFirmware(rt, a.uploader, { path: byPath(line), firmware, notes: 'Release notes ✓', acceptJson: true })
      ).json<FirmwareBuild>();
      const redirect = await rt.http.get(`/firmware/${created.id}/binary`, { auth: a.readOnly });
      expect(redirect.status).toBe(302);
      expect(redirect.header('location')).toMatch(new RegExp(`^${rt.baseUrl}/dl/`));
      const { reply: binary, hops } = await rt.http.follow(redirect.header('location')!);
      expect(binary.status).toBe(200);
      expect(sha256(binary.body)).toBe(created.sha256);
      if (hops.length === 1) expect(binary.contentType).toBe('application/octet-stream');
      const notesRedirect = await rt.http.get(`/firmware/${created.id}/notes`, { auth: a.readOnly });
      expect(notesRedirect.status).toBe(302);
      const { reply: notes, hops: notesHops } = await rt.http.follow(notesRedirect.header('location')!);
      expect(notes.text).toBe('Release notes ✓');
      if (notesHops.length === 1) expect(notes.contentType).toBe('text/plain; charset=utf-8');
      const counted = await eventually(
        async () => (await rt.http.get(`/firmware/${created.id}`, { auth: a.readOnly })).json<FirmwareBuild>(),
        (build) => build.download_count === 1 && build.notes_download_count === 1,
      );
      expect(counted).toMatchObject({ download_count: 1, notes_download_count: 1 });
    });

    it('notes of a build without notes, and unknown builds, are 404', async () => {
      const created = (
        await uploadFirmware(rt, a.uploader, { path: byPath(productLine()), firmware: binaryWith(['1.0, 2026-11-20, AFI']), acceptJson: true })
      ).json<FirmwareBuild>();
      const notes = await rt.http.get(`/firmware/${created.id}/notes`, { auth: a.readOnly });
      expectProblem(notes, 404, { detail: 'this build has no release notes', code: 'build_notes_not_found' });
      expect((await rt.http.get('/firmware/00000000-0000-4000-8000-000000000000/binary', { auth: a.readOnly })).status).toBe(404);
      expect((await rt.http.get('/firmware/not-an-id', { auth: a.readOnly })).status).toBe(404);
    });
  });
});
