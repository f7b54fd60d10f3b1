import { letters, randomDomain, randomEmail, randomLogName } from '../factories.js';
import { clientAddress, createBuild, createDevice, productLine, type UpdateItem, updateCheckPath } from '../firmware.js';
import type { Runtime } from '../runtime.js';
import type { Operation, ParameterDoc } from './openapi-model.js';
import type { FuzzContext } from './request-arbitraries.js';

/**
 * Real resources for the fuzz test to hit: a customer with its tokens, one firmware build (with
 * notes and a tag), one device, one log file, a download link; and, for the operations that
 * change or remove what they name (a customer, a token, a member, a tag), resources of their
 * own, so that the credentials the test sends stay valid for the whole run.
 */

export interface FuzzFixtures extends FuzzContext {
  /** Token → placeholder, for printing requests. */
  readonly secrets: ReadonlyMap<string, string>;
}

const FUZZ_TAG = 'fuzz-tag';
const VICTIM_TAG = 'victim-tag';

export async function createFuzzFixtures(rt: Runtime): Promise<FuzzFixtures> {
  const admin = await rt.adminToken();
  const customer = await rt.newCustomer();
  const line = productLine();
  const build = await createBuild(rt, customer.full, line, '1.0.0', { general: true, notes: 'release notes', tags: [FUZZ_TAG] });
  const hwid = `dev-${letters(8)}`;
  await createDevice(rt, customer.full, hwid, [FUZZ_TAG, VICTIM_TAG]);
  const logName = randomLogName();
  expectCreated(await rt.http.put(`/logdata/${logName}`, { auth: customer.full, body: 'boot ok\n', headers: { 'content-type': 'text/plain' } }), 'log file');

  const victimDomain = randomDomain();
  expectCreated(await rt.http.post('/admin/customers', { auth: admin, json: { domain: victimDomain, name: 'Fuzz victim' } }), 'victim customer');
  const victimToken = await rt.createToken(customer.owner, 'read-only', { name: 'fuzz victim' });
  const memberEmail = randomEmail(customer.domain);
  expectCreated(await rt.http.post('/members', { auth: admin, query: { customer: customer.domain }, json: { email: memberEmail, role: 'viewer' } }), 'member');

  const check = await rt.http.get(updateCheckPath(customer.domain, line, '0.0.1'), { localAddress: clientAddress() });
  const items = check.json<UpdateItem[]>();
  if (check.status !== 200 || items.length === 0) throw new Error(`update check for the fixture build: ${check.describe()}`);
  const downloadToken = new URL(items[0].url).pathname.split('/')[2];

  const events = await rt.http.get('/admin/security/events', { auth: admin, query: { limit: 5 } });
  const eventIds = events.status === 200 ? events.json<{ items: { id: number }[] }>().items.map((e) => String(e.id)) : [];

  const realValues = (op: Operation, param: ParameterDoc): readonly string[] => {
    const template = op.template;
    switch (param.name) {
      case 'customer':
        return [customer.domain, victimDomain, rt.operatorDomain];
      case 'domain':
        if (param.in === 'query') return [customer.domain];
        if (template.startsWith('/admin/customers')) return op.method === 'GET' ? [victimDomain, customer.domain] : [victimDomain];
        return [customer.domain, victimDomain];
      case 'email':
        return [memberEmail];
      case 'id':
        if (template.startsWith('/tokens')) return [victimToken.id];
        if (template.startsWith('/admin/security')) return eventIds.length ? eventIds : ['1'];
        return [build.id];
      case 'token':
        return [downloadToken];
      case 'name':
        return [logName];
      case 'hwid':
        return [hwid];
      case 'tag':
        return template.startsWith('/tags') ? [VICTIM_TAG] : [FUZZ_TAG];
      case 'hw_name':
        return [line.hw];
      case 'hw_version':
        return [line.rev];
      case 'fw_name':
        return [line.fw];
      case 'fw_version':
        return ['0.0.1', '1.0.0'];
      case 'file':
        return ['console.css'];
      case 'prefix':
        return [logName.slice(0, 8)];
      case 'q':
        return [hwid.slice(0, 5)];
      case 'limit':
        return ['1', '10'];
      case 'offset':
        return ['0', '1'];
      case 'days':
        return ['1', '90'];
      default:
        return [];
    }
  };

  return {
    credentials: { full: customer.full, readOnly: customer.readOnly, admin },
    realValues,
    secrets: new Map([
      [customer.full, '<full token>'],
      [customer.readOnly, '<read-only token>'],
      [admin, '<admin token>'],
    ]),
  };
}

function expectCreated(reply: { status: number; describe(): string }, what: string): void {
  if (reply.status !== 200 && reply.status !== 201) throw new Error(`${what}: ${reply.describe()}`);
}
