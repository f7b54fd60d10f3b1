import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Jwks } from '@app/contracts';
import { generateEd25519Key, privateKeyOf, publicJwkOf } from '@app/infra';
import { type JWTPayload, SignJWT } from 'jose';
import type { KeyObject } from 'node:crypto';
import { IdentityStore } from '../repositories/identity.store.js';
import { Clock } from './clock.js';

interface LoadedKeys {
  readonly jwks: Jwks;
  readonly signer: { readonly kid: string; readonly key: KeyObject };
  readonly loadedAt: number;
}

/** How long a replica trusts its copy of the key table (rotation by another replica shows up after this). */
const KEY_CACHE_MS = 60_000;
const KEY_GENERATION_LOCK = 'identity.signing-keys';

/**
 * Ed25519 signing keys kept in identity.signing_keys. The first start generates one (under an
 * advisory lock, so concurrent replicas end up with a single key). Several keys may be
 * published; the newest active one signs. Private keys never leave this class.
 */
@Injectable()
export class SigningKeys implements OnModuleInit {
  private loaded: LoadedKeys | null = null;
  private loading: Promise<LoadedKeys> | null = null;

  constructor(
    @Inject(IdentityStore) private readonly store: IdentityStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.ensureKey();
  }

  /** Creates the first key if there is none; idempotent and safe across replicas. */
  async ensureKey(): Promise<void> {
    await this.store.transaction(
      async (repos) => {
        if ((await repos.signingKeys.listActive()).length > 0) return;
        await repos.signingKeys.insert({ ...(await generateEd25519Key()), at: this.clock.now() });
      },
      { lock: KEY_GENERATION_LOCK },
    );
    this.loaded = null;
  }

  /** Public parts of the published keys (JWKS). */
  async jwks(): Promise<Jwks> {
    return (await this.keys()).jwks;
  }

  /** Signs with the newest active key; `kid` names it in the header. */
  async sign(claims: JWTPayload): Promise<string> {
    const { signer } = await this.keys();
    return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: signer.kid, typ: 'JWT' }).sign(signer.key);
  }

  /** Ids of keys no longer published: tokens they signed are in a format the service no longer accepts. */
  async retiredKids(): Promise<string[]> {
    return (await this.store.repos.signingKeys.listRetired()).map((k) => k.kid);
  }

  /** Drops the cached copy (after a rotation in this process). */
  invalidate(): void {
    this.loaded = null;
  }

  private async keys(): Promise<LoadedKeys> {
    if (this.loaded && Date.now() - this.loaded.loadedAt < KEY_CACHE_MS) return this.loaded;
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    this.loaded = await this.loading;
    return this.loaded;
  }

  private async load(): Promise<LoadedKeys> {
    let rows = await this.store.repos.signingKeys.listActive();
    if (rows.length === 0) {
      await this.ensureKey();
      rows = await this.store.repos.signingKeys.listActive();
    }
    const newest = rows[0];
    return {
      jwks: { keys: rows.map(publicJwkOf) },
      signer: { kid: newest.kid, key: privateKeyOf(newest) },
      loadedAt: Date.now(),
    };
  }
}
