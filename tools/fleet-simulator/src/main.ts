import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Jwks } from '@fds/device-client';
import { startFleet } from './fleet.js';

const HELP = `npm run simulate:fleet -- [options]

N virtual devices of one customer poll the update check over HTTP (through
packages/device-client), download what they are offered, then install, fail, roll back
or go silent with the given probabilities, and report outcomes signed when they have keys.

  --base-url URL        the service (default http://localhost:8080)
  --domain DOMAIN       the customer's domain (required)
  --devices N           number of devices (default 10), HW ids <prefix>0001...
  --hwid-prefix TEXT    (default SIM-)
  --hw-name, --hw-version, --fw-name, --fw-version   the product line and the version the devices start on (required)
  --poll-seconds S      interval when the service names none (default 60)
  --jitter J            0..1 spread of that interval (default 0.2)
  --fail P --rollback P --silent P   outcome probabilities (default 0.05, 0.02, 0.01)
  --jwks URL|FILE       pin this key set and verify every answer (e.g. <base-url>/.well-known/jwks.json)
  --keys-dir DIR        device keys: DIR/<hwid>.pem (private, PKCS#8); created (Ed25519) when missing,
                        with DIR/<hwid>.pub.pem beside it to register on the device (PATCH /devices/{hwid} {keys})
  --register-token T    create the devices (POST /devices, with their public keys) using this API token first
  --report              report outcomes (devices with keys only)
  --duration S          stop after S seconds (default: until Ctrl-C)
  --once                every device checks once, then the run ends
  --help
`;

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string', default: 'http://localhost:8080' },
    domain: { type: 'string' },
    devices: { type: 'string', default: '10' },
    'hwid-prefix': { type: 'string', default: 'SIM-' },
    'hw-name': { type: 'string' },
    'hw-version': { type: 'string' },
    'fw-name': { type: 'string' },
    'fw-version': { type: 'string' },
    'poll-seconds': { type: 'string', default: '60' },
    jitter: { type: 'string', default: '0.2' },
    fail: { type: 'string', default: '0.05' },
    rollback: { type: 'string', default: '0.02' },
    silent: { type: 'string', default: '0.01' },
    jwks: { type: 'string' },
    'keys-dir': { type: 'string' },
    'register-token': { type: 'string' },
    report: { type: 'boolean', default: false },
    duration: { type: 'string' },
    once: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
for (const required of ['domain', 'hw-name', 'hw-version', 'fw-name', 'fw-version'] as const) {
  if (!values[required]) {
    process.stderr.write(`--${required} is required\n\n${HELP}`);
    process.exit(2);
  }
}

const baseUrl = values['base-url'].replace(/\/$/, '');
const count = Number(values.devices);
const devices = Array.from({ length: count }, (_, i) => ({
  hwid: `${values['hwid-prefix']}${String(i + 1).padStart(4, '0')}`,
  hwName: values['hw-name']!,
  hwVersion: values['hw-version']!,
  fwName: values['fw-name']!,
  fwVersion: values['fw-version']!,
}));

async function loadJwks(source: string): Promise<Jwks> {
  if (/^https?:/.test(source)) return (await (await fetch(source)).json()) as Jwks;
  return JSON.parse(await readFile(source, 'utf8')) as Jwks;
}

/** DIR/<hwid>.pem, generated (Ed25519) with its public half when missing. */
async function deviceKeys(dir: string): Promise<Map<string, { key: KeyObject; publicPem: string }>> {
  await mkdir(dir, { recursive: true });
  const keys = new Map<string, { key: KeyObject; publicPem: string }>();
  for (const { hwid } of devices) {
    const file = join(dir, `${hwid}.pem`);
    let pem: string;
    try {
      pem = await readFile(file, 'utf8');
    } catch {
      const pair = generateKeyPairSync('ed25519');
      pem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      await writeFile(file, pem, { mode: 0o600 });
      await writeFile(join(dir, `${hwid}.pub.pem`), pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    }
    const key = createPrivateKey(pem);
    keys.set(hwid, { key, publicPem: createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString() });
  }
  return keys;
}

async function register(token: string, keys: Map<string, { publicPem: string }> | null): Promise<void> {
  for (const { hwid } of devices) {
    const publicPem = keys?.get(hwid)?.publicPem;
    const response = await fetch(`${baseUrl}/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ hwid, ...(publicPem ? { keys: [publicPem] } : {}) }),
    });
    if (response.status === 409 && publicPem) {
      await fetch(`${baseUrl}/devices/${encodeURIComponent(hwid)}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ keys: [publicPem] }),
      });
    } else if (response.status !== 201 && response.status !== 409) {
      throw new Error(`POST /devices ${hwid}: ${response.status} ${await response.text()}`);
    }
  }
}

const keys = values['keys-dir'] ? await deviceKeys(values['keys-dir']) : null;
if (values['register-token']) await register(values['register-token'], keys);
const fleet = await startFleet({
  baseUrl,
  domain: values.domain!,
  devices,
  pollSeconds: values.once ? 0 : Number(values['poll-seconds']),
  jitter: Number(values.jitter),
  outcomes: { fail: Number(values.fail), rollback: Number(values.rollback), silent: Number(values.silent) },
  ...(values.jwks ? { verifyKeys: await loadJwks(values.jwks) } : {}),
  reportOutcomes: values.report,
  ...(keys ? { deviceKeys: new Map([...keys].map(([hwid, k]) => [hwid, k.key])) } : {}),
});

function summary(): string {
  const states = new Map<string, number>();
  const versions = new Map<string, number>();
  for (const d of fleet.devices()) {
    states.set(d.state, (states.get(d.state) ?? 0) + 1);
    versions.set(d.fwVersion, (versions.get(d.fwVersion) ?? 0) + 1);
  }
  const s = fleet.stats();
  return [
    `${new Date().toISOString()} checks ${s.checks} (304: ${s.notModified}) downloads ${s.downloads} reports ${s.reports} refused ${s.reportRefusals} errors ${s.errors}`,
    `  states   ${[...states].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  versions ${[...versions].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    ...(s.lastError ? [`  last error: ${s.lastError}`] : []),
  ].join('\n');
}

if (values.once) {
  await fleet.pollOnce();
  console.log(summary());
  await fleet.stop();
} else {
  const ticker = setInterval(() => console.log(summary()), 10_000);
  const finish = async (): Promise<void> => {
    clearInterval(ticker);
    await fleet.stop();
    console.log(summary());
    process.exit(0);
  };
  process.once('SIGINT', () => void finish());
  process.once('SIGTERM', () => void finish());
  if (values.duration) setTimeout(() => void finish(), Number(values.duration) * 1000);
}
