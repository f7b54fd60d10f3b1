import { describe, expect, it } from '@jest/globals';
import { type AdminLevel, type Bundle, BUNDLES, READ_SCOPES, type Role, ROLE_SCOPES, type Scope, WRITE_SCOPES } from '@app/contracts';
import { adminLevelFor, assertBundleWithinCeiling, bundleWithinCeiling, canRevokeAnyToken, canSeeAllTokens, personScopes, roleScopes } from './access.js';

describe('administrator level from the operator role', () => {
  it.each<[Role | null, AdminLevel]>([
    ['viewer', 'read'],
    ['editor', 'full'],
    ['owner', 'full'],
    [null, ''],
  ])('%s -> %j', (role, level) => {
    expect(adminLevelFor(role)).toBe(level);
  });
});

describe('scopes of a person', () => {
  it('role scopes: viewer reads, editor also writes, owner also manages members, no role gives none', () => {
    expect(roleScopes('viewer')).toEqual([...READ_SCOPES]);
    expect(roleScopes('editor')).toEqual([...READ_SCOPES, ...WRITE_SCOPES]);
    expect(roleScopes('owner')).toEqual([...READ_SCOPES, ...WRITE_SCOPES, 'members:manage']);
    expect(roleScopes(null)).toEqual([]);
  });

  it('adds admin for full administrators only; read-only administrators without a role read', () => {
    expect(personScopes('owner', 'full')).toContain('admin');
    expect(personScopes('viewer', 'read')).not.toContain('admin');
    expect(personScopes(null, 'read')).toEqual([...READ_SCOPES]);
    expect(personScopes(null, '')).toEqual([]);
  });
});

describe('bundle ceiling', () => {
  const member = (role: Role): { scopes: readonly Scope[]; admin: AdminLevel } => ({ scopes: ROLE_SCOPES[role], admin: '' });

  it.each<[Role, Bundle, boolean]>([
    ['viewer', 'read-only', true],
    ['viewer', 'uploader', false],
    ['viewer', 'full', false],
    ['editor', 'read-only', true],
    ['editor', 'uploader', true],
    ['editor', 'full', true],
    ['owner', 'full', true],
    ['owner', 'admin', false],
  ])('a %s asking for %s: %s', (role, bundle, allowed) => {
    expect(bundleWithinCeiling(bundle, member(role), false)).toBe(allowed);
  });

  it('follows the caller scopes, not the role name (a token caller with uploader scopes)', () => {
    const uploaderToken = { scopes: [...READ_SCOPES, 'fw:write', 'logdata:write'] as Scope[], admin: '' as AdminLevel };
    expect(bundleWithinCeiling('uploader', uploaderToken, false)).toBe(true);
    expect(bundleWithinCeiling('full', uploaderToken, false)).toBe(false);
  });

  it('lets full administrators ask for any bundle, the admin bundle only on the operator customer', () => {
    const full = { scopes: ['admin'] as Scope[], admin: 'full' as AdminLevel };
    for (const bundle of BUNDLES.filter((b) => b !== 'admin')) expect(bundleWithinCeiling(bundle, full, false)).toBe(true);
    expect(bundleWithinCeiling('admin', full, true)).toBe(true);
    expect(bundleWithinCeiling('admin', full, false)).toBe(false);
  });

  it('never gives the admin bundle to read-only administrators', () => {
    expect(bundleWithinCeiling('admin', { scopes: READ_SCOPES, admin: 'read' }, true)).toBe(false);
    expect(bundleWithinCeiling('read-only', { scopes: READ_SCOPES, admin: 'read' }, false)).toBe(true);
    expect(bundleWithinCeiling('uploader', { scopes: READ_SCOPES, admin: 'read' }, false)).toBe(false);
  });

  it('refuses with 403 "bundle exceeds your scopes"', () => {
    expect(() => assertBundleWithinCeiling('full', member('viewer'), false)).toThrow(
      expect.objectContaining({ status: 403, reason: 'token_bundle_exceeds_scopes', message: 'bundle exceeds your scopes' }),
    );
  });
});

describe('who sees and revokes every token of a customer', () => {
  it('members:manage and administrators see all; others their own', () => {
    expect(canSeeAllTokens({ scopes: ROLE_SCOPES.owner, admin: '' })).toBe(true);
    expect(canSeeAllTokens({ scopes: ROLE_SCOPES.editor, admin: '' })).toBe(false);
    expect(canSeeAllTokens({ scopes: READ_SCOPES, admin: 'read' })).toBe(true);
  });

  it('only members:manage and full administrators revoke other people’s tokens', () => {
    expect(canRevokeAnyToken({ scopes: ROLE_SCOPES.owner, admin: '' })).toBe(true);
    expect(canRevokeAnyToken({ scopes: ROLE_SCOPES.editor, admin: '' })).toBe(false);
    expect(canRevokeAnyToken({ scopes: READ_SCOPES, admin: 'read' })).toBe(false);
    expect(canRevokeAnyToken({ scopes: ['admin'], admin: 'full' })).toBe(true);
  });
});
