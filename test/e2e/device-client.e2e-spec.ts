import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DeviceClient, DeviceClientError, type Jwks, reportClaims, reportUrl, signReport, type UpdateItem } from '@fds/device-client';
import { fetchFrom } from '../../tools/fleet-simulator/src/index.js';
import { binaryWith, clientAddress, type FirmwareBuild, productLine, sha256, uploadFirmware } from './support/firmware.js';
import { expectProblem } from './support/problems.js';
import { startRuntime, type CustomerFixture, type Runtime } from './support/runtime.js';

/**
 * docs/device-protocol.md against the real service: packages/device-client checks (the answer's
 * signature verified against the pinned /.well-known/jwks.json), downloads with a transfer
 * cut halfway (resumed with Range), refuses a file that does not match its SHA-256, and
 * reports signed with the device's key (docs/api.md "Device reports").
 */
describe('device client against the service', () => {
  let rt: Runtime;
  let c: CustomerFixture;
  let dir: string;
  let build: FirmwareBuild & { binary: Buffer };
  let jwks: Jwks;
  const line = productLine();
  const hwid = `dev-client-${Date.now()}`;
  let deviceKey: KeyObject;

  const clientFor = (options: { key?: KeyObject; fetch?: typeof fetch } = {}) =>
    new DeviceClient({
      baseUrl: rt.baseUrl,
      device: { domain: c.domain, hwid, hwName: line.hw, hwVersion: line.rev, fwName: line.fw, fwVersion: '1.0' },
      verifyKeys: jwks,
      ...(options.key ? { deviceKey: options.key } : {}),
      fetch: options.fetch ?? fetchFrom(clientAddress()),
    });

  beforeAll(async () => {
    rt = await startRuntime();
    c = await rt.newCustomer();
    dir = await mkdtemp(join(tmpdir(), 'device-client-e2e-'));
    const binary = binaryWith(['2.0, 2026-11-20T10:00:00Z, AFI'], { noise: 768 * 1024 });
    const upload = await uploadFirmware(rt, c.uploader, {
      path: `/firmware/${encodeURIComponent(line.hw)}/${encodeURIComponent(line.rev)}/${encodeURIComponent(line.fw)}`,
      query: { general_release: 'true' },
      firmware: binary,
      acceptJson: true,
    });
    expect(upload.status).toBe(201);
    build = { ...upload.json<FirmwareBuild>(), binary };
    const pair = generateKeyPairSync('ed25519');
    deviceKey = pair.privateKey;
    const created = await rt.http.post('/devices', { auth: c.full, json: { hwid, keys: [pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()] } });
    expect(created.status).toBe(201);
    jwks = (await rt.http.get('/.well-known/jwks.json')).json<Jwks>();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await rt?.stop();
  });

  async function offered(): Promise<UpdateItem> {
    const answer = await clientFor().check();
    expect(answer.status).toBe(200);
    expect(answer.nextPollSeconds).toBeGreaterThan(0);
    const item = answer.items.find((i) => i.id === build.id);
    expect(item).toBeDefined();
    return item!;
  }

  it('checks with a verified signature, and a download cut halfway resumes with Range to the exact bytes', async () => {
    const item = await offered();
    let cut = false;
    // The first transfer is aborted once half the file has arrived (a cut stream), whatever serves it (gateway or object store).
    const cutting: typeof fetch = async (input, init) => {
      const controller = new AbortController();
      const response = await fetchFrom(clientAddress())(input, { ...init, signal: controller.signal });
      if (cut || !response.body) return response;
      let received = 0;
      const counted = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, out) {
            received += chunk.length;
            if (!cut && received > item.size_bytes / 2) {
              cut = true;
              controller.abort();
              out.error(new Error('connection cut by the test'));
              return;
            }
            out.enqueue(chunk);
          },
        }),
      );
      return new Response(counted, { status: response.status, headers: response.headers });
    };
    const destination = join(dir, 'resumed.bin');
    const result = await clientFor({ fetch: cutting }).download(item, destination, { retryDelayMs: 10 });
    expect(cut).toBe(true);
    expect(result.transfers).toBe(2);
    expect(result.resumedBytes).toBeGreaterThan(0);
    expect(result.resumedBytes).toBeLessThan(item.size_bytes);
    const bytes = await readFile(destination);
    expect(bytes.equals(build.binary)).toBe(true);
    expect(sha256(bytes)).toBe(item.sha256);
  });

  it('refuses a file that does not match the update item SHA-256', async () => {
    const item = await offered();
    const err = await clientFor()
      .download({ ...item, sha256: sha256('something else') }, join(dir, 'corrupt.bin'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceClientError);
    expect((err as DeviceClientError).code).toBe('sha256_mismatch');
  });

  it('refuses an answer whose signature is by a key that is not pinned', async () => {
    const foreign = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    const client = new DeviceClient({
      baseUrl: rt.baseUrl,
      device: { domain: c.domain, hwid, hwName: line.hw, hwVersion: line.rev, fwName: line.fw, fwVersion: '1.0' },
      verifyKeys: { keys: jwks.keys.map((k) => ({ ...foreign, kid: k.kid })) },
      fetch: fetchFrom(clientAddress()),
    });
    await expect(client.check()).rejects.toMatchObject({ code: 'signature_invalid' });
  });

  it('a signed failure report is stored (once per report id) and listed with the device; unsigned, wrongly signed and stale ones are refused', async () => {
    const item = await offered();
    const client = clientFor({ key: deviceKey });
    expect(await client.report({ buildId: item.id, fwVersion: item.fw_version, outcome: 'failed', reason: 'flash write error' })).toBe(201);

    const url = reportUrl(rt.baseUrl, c.domain, hwid).slice(rt.baseUrl.length);
    const claims = reportClaims({ domain: c.domain, hwid }, { buildId: item.id, fwVersion: item.fw_version, outcome: 'rolled_back', reason: 'watchdog' });
    const signed = signReport(claims, deviceKey);
    const first = await rt.http.post(url, { json: signed, localAddress: clientAddress() });
    expect(first.status).toBe(201);
    const again = await rt.http.post(url, { json: signed, localAddress: clientAddress() });
    expect(again.status).toBe(200);
    expect(again.json()).toMatchObject({ report_id: claims.report_id, outcome: 'rolled_back', reason: 'watchdog', build_id: item.id });

    const list = await rt.http.get(`/devices/${encodeURIComponent(hwid)}/reports`, { auth: c.readOnly });
    expect(list.status).toBe(200);
    const outcomes = list.json<{ items: { outcome: string; reason: string | null }[] }>().items.map((r) => `${r.outcome}:${r.reason}`);
    expect(outcomes.sort()).toEqual(['failed:flash write error', 'rolled_back:watchdog']);

    expectProblem(await rt.http.post(url, { json: { payload: signed.payload }, localAddress: clientAddress() }), 401, { code: 'device_report_unsigned' });
    const wrongKey = signReport(
      reportClaims({ domain: c.domain, hwid }, { buildId: item.id, fwVersion: '2.0', outcome: 'failed' }),
      generateKeyPairSync('ed25519').privateKey,
    );
    expectProblem(await rt.http.post(url, { json: wrongKey, localAddress: clientAddress() }), 401, { code: 'device_report_signature_invalid' });
    const stale = signReport(
      reportClaims({ domain: c.domain, hwid }, { buildId: item.id, fwVersion: '2.0', outcome: 'failed' }, new Date(Date.now() - 3600_000)),
      deviceKey,
    );
    expectProblem(await rt.http.post(url, { json: stale, localAddress: clientAddress() }), 401, { code: 'device_report_stale' });
    // An unknown device is refused like a wrong key: a report does not tell who exists.
    const unknownUrl = reportUrl(rt.baseUrl, c.domain, `${hwid}-unknown`).slice(rt.baseUrl.length);
    expectProblem(await rt.http.post(unknownUrl, { json: signed, localAddress: clientAddress() }), 401, { code: 'device_report_signature_invalid' });
    await expect(client.report({ buildId: item.id, fwVersion: '2.0', outcome: 'failed' }, { unsigned: true })).rejects.toMatchObject({ status: 401 });
  });
});
