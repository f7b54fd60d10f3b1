import { describe, expect, it } from '@jest/globals';
import { CommonErrors, type EndpointDef, ENDPOINTS, ErrorCode, ProtectionMessages, type ProtectionState, ServiceError } from '@app/contracts';
import { configureLogging, type MessageBus } from '@app/infra';
import { GatewayProtection } from './gateway-protection.js';

configureLogging({ sink: () => undefined });

const endpoint = (operationId: string): EndpointDef => ENDPOINTS.find((e) => e.operationId === operationId)!;

function refusal(run: () => void): ServiceError | null {
  try {
    run();
    return null;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
}

/** The bus as GatewayProtection uses it: the state message answered by `state`, every request recorded. */
function protectionWith(state: () => ProtectionState): { protection: GatewayProtection; bus: { sent: Array<{ pattern: string; payload: unknown }> } } {
  const bus = {
    sent: [] as Array<{ pattern: string; payload: unknown }>,
    send(message: { pattern: string }, payload: unknown): Promise<ProtectionState> {
      bus.sent.push({ pattern: message.pattern, payload });
      return Promise.resolve().then(state);
    },
    subscribe: () => () => undefined,
  };
  return { protection: new GatewayProtection(bus as unknown as MessageBus), bus };
}

describe('GatewayProtection', () => {
  it('refuses writes in maintenance with 503 and Retry-After, except those allowed; blocks every endpoint for a blocked address', async () => {
    const { protection } = protectionWith(() => ({
      changed: true,
      revision: '7',
      maintenance: { enabled: true, message: 'upgrading' },
      blocks: [{ cidr: '192.0.2.0/24', expires_at: null }],
    }));
    await protection.refresh();
    const write = refusal(() => protection.check(endpoint('createDevice'), 'POST', '198.51.100.1'));
    expect(write).toMatchObject({ code: ErrorCode.Unavailable, message: 'upgrading', headers: { 'Retry-After': '300' } });
    expect(refusal(() => protection.check(endpoint('login'), 'POST', '198.51.100.1'))).toBeNull();
    expect(refusal(() => protection.check(endpoint('adminSetMaintenance'), 'PUT', '198.51.100.1'))).toBeNull();
    expect(refusal(() => protection.check(endpoint('listDevices'), 'GET', '198.51.100.1'))).toBeNull();
    expect(refusal(() => protection.check(endpoint('healthz'), 'GET', '::ffff:192.0.2.9'))).toMatchObject({
      code: ErrorCode.Forbidden,
      message: 'address blocked',
    });
    expect(refusal(() => protection.check(endpoint('login'), 'POST', '192.0.2.9'))).toMatchObject({ code: ErrorCode.Forbidden });
    expect(protection.refusalFor('not found', '192.0.2.1')).toMatchObject({ code: ErrorCode.Forbidden });
    expect(protection.refusalFor('not found', '198.51.100.1')).toBe('not found');
    expect(protection.maintenance).toEqual({ enabled: true, message: 'upgrading' });
  });

  it('asks with the revision it has, and keeps the last known state while the admin app does not answer', async () => {
    let answer: () => ProtectionState = () => ({
      changed: true,
      revision: '1',
      maintenance: { enabled: false, message: 'default' },
      blocks: [{ cidr: '203.0.113.5/32', expires_at: null }],
    });
    const { protection, bus } = protectionWith(() => answer());
    await protection.refresh();
    answer = () => {
      throw CommonErrors.app_unavailable({ app: 'admin' });
    };
    await protection.refresh();
    expect(refusal(() => protection.check(endpoint('healthz'), 'GET', '203.0.113.5'))).toMatchObject({ code: ErrorCode.Forbidden });
    expect(bus.sent.filter((s) => s.pattern === ProtectionMessages.protectionState.pattern).map((s) => s.payload)).toEqual([
      { knownRevision: null },
      { knownRevision: '1' },
    ]);
    answer = () => ({ changed: false, revision: '1' });
    await protection.refresh();
    expect(refusal(() => protection.check(endpoint('healthz'), 'GET', '203.0.113.5'))).not.toBeNull();
  });

  it("enforces a change's state at once (apply), and keeps it against an older state read meanwhile or applied late", async () => {
    const initial: ProtectionState = { changed: true, revision: '9', maintenance: { enabled: false, message: 'default' }, blocks: [] };
    let answer: () => Promise<ProtectionState> = () => Promise.resolve(initial);
    const bus = { send: () => answer(), subscribe: () => () => undefined };
    const protection = new GatewayProtection(bus as unknown as MessageBus);
    await protection.refresh();
    const write = () => refusal(() => protection.check(endpoint('createDevice'), 'POST', '198.51.100.1'));
    expect(write()).toBeNull();

    // A re-read under way that started before the change: it will answer the state before it.
    let answerStale!: (state: ProtectionState) => void;
    answer = () => new Promise((resolve) => (answerStale = resolve));
    const reading = protection.refresh();
    protection.apply({
      changed: true,
      revision: '10',
      maintenance: { enabled: true, message: 'upgrading' },
      blocks: [{ cidr: '192.0.2.0/24', expires_at: null }],
    });
    expect(write()).toMatchObject({ code: ErrorCode.Unavailable, message: 'upgrading' });
    expect(refusal(() => protection.check(endpoint('healthz'), 'GET', '192.0.2.7'))).toMatchObject({ code: ErrorCode.Forbidden });
    answerStale(initial);
    await reading;
    expect(write()).toMatchObject({ code: ErrorCode.Unavailable });
    expect(protection.maintenance).toEqual({ enabled: true, message: 'upgrading' });

    // A reply applied after a later state (revision 11 then 10 again): the later one stays.
    protection.apply({ changed: true, revision: '11', maintenance: { enabled: false, message: 'default' }, blocks: [] });
    expect(write()).toBeNull();
    protection.apply({ changed: true, revision: '10', maintenance: { enabled: true, message: 'upgrading' }, blocks: [] });
    expect(write()).toBeNull();
    // Revisions compare as numbers, not as text.
    protection.apply({ changed: true, revision: '100', maintenance: { enabled: true, message: 'later' }, blocks: [] });
    expect(write()).toMatchObject({ message: 'later' });

    // A later state read afterwards is taken as usual.
    answer = () => Promise.resolve({ changed: true, revision: '101', maintenance: { enabled: false, message: 'default' }, blocks: [] });
    await protection.refresh();
    expect(write()).toBeNull();
  });
});
