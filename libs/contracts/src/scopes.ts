export const SCOPES = [
  'fw:read',
  'fw:write',
  'logdata:read',
  'logdata:write',
  'devices:read',
  'devices:write',
  'tags:read',
  'tags:write',
  'stats:read',
  'members:manage',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

export const READ_SCOPES: readonly Scope[] = ['fw:read', 'logdata:read', 'devices:read', 'tags:read', 'stats:read'];
export const WRITE_SCOPES: readonly Scope[] = ['fw:write', 'logdata:write', 'devices:write', 'tags:write'];

export const ROLES = ['viewer', 'editor', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** The scopes each role holds in its customer (docs/api.md "Roles, scopes and administrators"). */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  viewer: READ_SCOPES,
  editor: [...READ_SCOPES, ...WRITE_SCOPES],
  owner: [...READ_SCOPES, ...WRITE_SCOPES, 'members:manage'],
};

export const BUNDLES = ['read-only', 'uploader', 'full', 'admin'] as const;
export type Bundle = (typeof BUNDLES)[number];

/** The bundles offered for token creation; `admin` only to full administrators, on the operator customer (docs/api.md "API tokens"). */
export const BUNDLE_SCOPES: Record<Bundle, readonly Scope[]> = {
  'read-only': READ_SCOPES,
  uploader: [...READ_SCOPES, 'fw:write', 'logdata:write'],
  full: [...READ_SCOPES, ...WRITE_SCOPES],
  admin: ['admin'],
};

/** '' for non-administrators; 'read' for viewers of the operator customer; 'full' otherwise. */
export type AdminLevel = '' | 'read' | 'full';

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Whether a holder of `held` may do what `needed` allows. The admin scope covers every
 * scope; a read-only administrator (AdminLevel 'read') holds every :read scope instead.
 */
export function scopeAllows(held: readonly Scope[], needed: Scope): boolean {
  return held.includes(needed) || held.includes('admin');
}
