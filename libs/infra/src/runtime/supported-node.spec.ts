import { describe, expect, it } from '@jest/globals';
import { compareVersions, MINIMUM_NODE_VERSION, unsupportedNodeReason } from './supported-node.js';

describe('supported Node.js', () => {
  it('compares release numbers numerically, not as text', () => {
    expect(compareVersions('24.11.0', '24.9.9')).toBe(1);
    expect(compareVersions('v20.20.2', '24.11.0')).toBe(-1);
    expect(compareVersions('24.11.0', 'v24.11.0')).toBe(0);
    expect(compareVersions('26.0.0-pre', '24.21.0')).toBe(1);
  });

  it('accepts the minimum and later releases', () => {
    expect(unsupportedNodeReason(MINIMUM_NODE_VERSION)).toBeUndefined();
    expect(unsupportedNodeReason('24.21.0')).toBeUndefined();
    expect(unsupportedNodeReason('26.10.0')).toBeUndefined();
  });

  it('refuses an older release, naming the version found and the one needed', () => {
    expect(unsupportedNodeReason('20.20.2')).toBe(
      'Node.js 20.20.2 is not supported: the service needs Node.js 24.11.0 or later. Start it with npm (npm start, npm run start:<app>, npm run cli), which runs the Node.js the project installs (node_modules/.bin/node), or install Node.js 24 LTS.',
    );
    expect(unsupportedNodeReason('24.10.0')).toContain('Node.js 24.10.0 is not supported');
  });

  it('this test run is on a supported Node.js', () => {
    expect(unsupportedNodeReason()).toBeUndefined();
  });
});
