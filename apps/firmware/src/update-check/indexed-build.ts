import type { FwType, UpdateItem } from '@app/contracts';
import type { Build } from '../domain/build.js';
import { audienceOf, type BuildAudienceRule, type RolloutOfBuild } from './selection.js';

/** What the update check needs of an active build, kept in memory (BuildIndex). */
export interface IndexedBuild {
  readonly entity: Build;
  readonly id: string;
  readonly fwVersion: string;
  readonly fwType: FwType;
  readonly versionKey: Buffer;
  /** versionKey as a latin1 string, compared with `<` (see versionOrderKey). */
  readonly orderKey: string;
  /** Who it is offered to (selection.ts audienceOf), decided once when indexed. */
  readonly audience: BuildAudienceRule;
  /** `<id>:<revision>`, what the update check's ETag is computed from. */
  readonly etagPart: string;
  /** The update item (the contract's UpdateItem) without its links. */
  readonly item: Omit<UpdateItem, 'url' | 'notes_url'>;
  /** Signed links, re-signed when older than a minute (they are valid 5). */
  links?: { readonly url: string; readonly notesUrl: string | null; readonly signedAt: number };
}

/** An active build as the update check keeps it; `rollout`: the rollout governing it, if any. */
export function indexed(entity: Build, rollout?: RolloutOfBuild): IndexedBuild {
  return {
    entity,
    id: entity.id,
    fwVersion: entity.fwVersion,
    fwType: entity.fwType,
    versionKey: entity.versionKey,
    orderKey: entity.versionKey.toString('latin1'),
    audience: audienceOf(entity, rollout),
    etagPart: `${entity.id}:${entity.revision}`,
    item: {
      id: entity.id,
      fw_name: entity.fwName,
      fw_version: entity.fwVersion,
      fw_type: entity.fwType,
      hw_name: entity.hwName,
      hw_version: entity.hwVersion,
      build_date: entity.buildDate.toISOString(),
      general_release: entity.generalRelease,
      size_bytes: entity.sizeBytes,
      sha256: entity.sha256,
    },
  };
}
