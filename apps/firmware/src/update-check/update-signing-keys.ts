import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { FirmwareEvents, type Jwks, type UpdateSigningKeys as UpdateSigningKeysView } from '@app/contracts';
import { generateEd25519Key, JsonLogger, MessageBus, privateKeyOf, publicJwkOf } from '@app/infra';
import type { KeyObject } from 'node:crypto';
import { FirmwareStore } from '../repositories/firmware.store.js';
import type { UpdateSigningKey } from '../repositories/update-signing-key.repository.js';

/** Prefix of the update-answer keys' `kid` in /.well-known/jwks.json (identity's token keys have none). */
export const UPDATE_KEY_PREFIX = 'update-';
/** How long the keys a rotation replaces stay published after the new key starts signing. */
export const UPDATE_KEY_OVERLAP_SECONDS = 86_400;
/** A rotation's default delay before the new key signs: devices refreshing their key set daily learn it first. */
export const UPDATE_KEY_DEFAULT_START_SECONDS = 86_400;
/** How often a replica rereads the keys (a rotation elsewhere also reaches it at once, by event). */
const RELOAD_MS = 60_000;

export interface AnswerKey {
  readonly kid: string;
  readonly key: KeyObject;
}

interface Loaded {
  readonly keys: readonly UpdateSigningKey[];
  readonly jwks: Jwks;
  readonly signer: AnswerKey;
  /** When the signer must be picked again (a scheduled key starts, or a key stops being published). */
  readonly repickAt: number;
}

/**
 * The Ed25519 keys that sign update-check answers and nothing else (docs/api.md "Signed
 * answers"), kept in firmware.update_signing_keys; the first start creates one (under an advisory
 * lock, so replicas end up with one). The signer is read synchronously on the hot path from what
 * was loaded; reloads happen in the background. Private keys never leave this app.
 */
@Injectable()
export class UpdateSigningKeys implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new JsonLogger('firmware');
  private loaded: Loaded | null = null;
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;

  constructor(
    @Inject(FirmwareStore) private readonly store: FirmwareStore,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.ensureKey();
    await this.reload();
    this.unsubscribe = this.bus.subscribe(FirmwareEvents.updateSigningKeysChanged, () => this.reloadQuietly());
    this.timer = setInterval(() => this.reloadQuietly(), RELOAD_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.unsubscribe?.();
  }

  /** The key that signs now. */
  signer(now: number): AnswerKey {
    const loaded = this.loaded;
    if (!loaded) throw new Error('update signing keys not loaded');
    if (now < loaded.repickAt) return loaded.signer;
    this.loaded = this.pick(loaded.keys, now);
    return this.loaded.signer;
  }

  /** The published public keys (JWKS entries), from the table. */
  async jwks(): Promise<Jwks> {
    await this.reload();
    return this.loaded!.jwks;
  }

  /** The published keys and their schedule. */
  async view(): Promise<UpdateSigningKeysView> {
    await this.reload();
    return {
      keys: this.loaded!.keys.map((k) => ({
        kid: k.kid,
        created_at: k.createdAt.toISOString(),
        signs_from: k.signsFrom.toISOString(),
        published_until: k.publishedUntil?.toISOString() ?? null,
      })),
    };
  }

  /**
   * A new key, published now and signing `startsInSeconds` later; the keys published so far stay
   * published until UPDATE_KEY_OVERLAP_SECONDS after that. Every replica reloads (event).
   */
  async rotate(startsInSeconds: number, now: Date): Promise<void> {
    const signsFrom = new Date(now.getTime() + startsInSeconds * 1000);
    const key = await generateEd25519Key(UPDATE_KEY_PREFIX);
    await this.store.transaction(async (repos) => {
      await repos.updateSigningKeys.lock();
      await repos.updateSigningKeys.publishUntil(new Date(signsFrom.getTime() + UPDATE_KEY_OVERLAP_SECONDS * 1000));
      await repos.updateSigningKeys.insert(key, now, signsFrom);
    });
    await this.reload();
    this.bus.emit(FirmwareEvents.updateSigningKeysChanged, {});
  }

  /** Creates the first key if none is published; idempotent and safe across replicas. */
  private async ensureKey(): Promise<void> {
    const now = new Date();
    if ((await this.store.repos.updateSigningKeys.listPublished(now)).length > 0) return;
    const key = await generateEd25519Key(UPDATE_KEY_PREFIX);
    await this.store.transaction(async (repos) => {
      await repos.updateSigningKeys.lock();
      if ((await repos.updateSigningKeys.listPublished(now)).length === 0) await repos.updateSigningKeys.insert(key, now, now);
    });
  }

  private async reload(): Promise<void> {
    const now = Date.now();
    const keys = await this.store.repos.updateSigningKeys.listPublished(new Date(now));
    if (keys.length === 0) {
      await this.ensureKey();
      return this.reload();
    }
    this.loaded = this.pick(keys, now);
  }

  private reloadQuietly(): void {
    this.reload().catch((err: unknown) =>
      this.logger.warn('update signing keys not reloaded: signing with the keys loaded before', { error: err instanceof Error ? err.message : String(err) }),
    );
  }

  /** The newest key whose time to sign has come (the oldest published if none has), and when to pick again. */
  private pick(keys: readonly UpdateSigningKey[], now: number): Loaded {
    const published = keys.filter((k) => k.publishedUntil === null || k.publishedUntil.getTime() > now);
    const usable = published.length > 0 ? published : keys;
    const chosen = usable.find((k) => k.signsFrom.getTime() <= now) ?? usable[usable.length - 1];
    const later = usable.flatMap((k) => [k.signsFrom.getTime(), k.publishedUntil?.getTime() ?? Infinity]).filter((t) => t > now);
    const previous = this.loaded?.signer.kid === chosen.kid ? this.loaded.signer : null;
    return {
      keys: usable,
      jwks: { keys: usable.map(publicJwkOf) },
      signer: previous ?? { kid: chosen.kid, key: privateKeyOf(chosen) },
      repickAt: Math.min(Infinity, ...later),
    };
  }
}
