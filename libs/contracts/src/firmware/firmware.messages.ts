import { CUSTOMER_ERASURE_TIMEOUT_MS, type CustomerErased, type CustomerErasure } from '../messages/customer-erasure.js';
import type { EndpointCall } from '../endpoints/endpoint.js';
import type { FileRef } from '../files.js';
import { defineEvent, defineMessage } from '../messages/message.js';
import type {
  FirmwareBuild,
  FirmwareCustomerQuery,
  FirmwareIdParams,
  FirmwareListQuery,
  FirmwarePage,
  FirmwarePatch,
  GeneralReleaseSetting,
  FirmwareTagParams,
  FirmwareUploadParams,
  FirmwareUploadQuery,
  ParseResult,
  TagSet,
  UpdateCheckParams,
  UpdateCheckQuery,
} from './firmware.schemas.js';
import type { BuildAudience, BuildAudienceQuery, UpdatePreview, UpdatePreviewQuery } from './rollout.schemas.js';
import type { DeviceParams } from '../registry/registry.schemas.js';
import type { Jwks } from '../identity/identity.schemas.js';
import type { RotateUpdateSigningKeyRequest, UpdateSigningKeys } from './update-signing.schemas.js';
import type { NoParams } from '../schemas.js';

export interface FirmwareUploadResult {
  /** false for an identical re-upload (nothing changed). */
  readonly created: boolean;
  readonly build: FirmwareBuild;
}

/** A build with its current ETag (GET, PATCH). */
export interface FirmwareWithEtag {
  readonly build: FirmwareBuild;
  readonly etag: string;
}

/** The RFC 9421 signature of an update-check answer: the values of its three headers (docs/api.md "Signed answers"). */
export interface AnswerSignature {
  readonly contentDigest: string;
  readonly signatureInput: string;
  readonly signature: string;
}

/**
 * The update check's answer: the items, or "not modified" when If-None-Match matched.
 * `pollAfterSeconds`: the device's next check, with its jitter, before the gateway's stretch under load.
 */
export type UpdateCheckResult =
  /** `body`: the JSON array of update items, serialized once by the firmware app (answers are reused). */
  | {
      readonly kind: 'items';
      readonly body: string;
      readonly etag: string;
      readonly maxAgeSeconds: number;
      readonly pollAfterSeconds: number;
      readonly signature: AnswerSignature;
    }
  | { readonly kind: 'not-modified'; readonly etag: string; readonly maxAgeSeconds: number; readonly pollAfterSeconds: number };

export interface FirmwareDownloaded {
  readonly customerId: string;
  readonly buildId: string;
  readonly kind: 'binary' | 'notes';
  readonly at: string;
}

/** A customer's builds changed (upload, PATCH, tags): every replica drops its update-check index of the customer. */
export interface FirmwareChanged {
  readonly customerId: string;
}

export const FirmwareMessages = {
  upload: defineMessage<EndpointCall<FirmwareUploadParams, FirmwareUploadQuery, undefined>, FirmwareUploadResult>('firmware.upload', { timeoutMs: 300_000 }),
  parse: defineMessage<EndpointCall<NoParams, FirmwareCustomerQuery, undefined>, ParseResult>('firmware.parse', { timeoutMs: 300_000 }),
  list: defineMessage<EndpointCall<NoParams, FirmwareListQuery, undefined>, FirmwarePage>('firmware.list'),
  get: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>, FirmwareWithEtag>('firmware.get'),
  update: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, FirmwarePatch>, FirmwareWithEtag>('firmware.update'),
  setGeneralRelease: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, GeneralReleaseSetting>, FirmwareWithEtag>(
    'firmware.set-general-release',
  ),
  binary: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>, FileRef>('firmware.binary'),
  notes: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>, FileRef>('firmware.notes'),
  getTags: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, undefined>, TagSet>('firmware.tags.get'),
  replaceTags: defineMessage<EndpointCall<FirmwareIdParams, FirmwareCustomerQuery, TagSet>, TagSet>('firmware.tags.replace'),
  addTag: defineMessage<EndpointCall<FirmwareTagParams, FirmwareCustomerQuery, undefined>, void>('firmware.tags.add'),
  removeTag: defineMessage<EndpointCall<FirmwareTagParams, FirmwareCustomerQuery, undefined>, void>('firmware.tags.remove'),
  /** The public update check (both paths). Answered from memory: no database query, no write. */
  updateCheck: defineMessage<EndpointCall<UpdateCheckParams, UpdateCheckQuery, undefined>, UpdateCheckResult>('firmware.update-check', {
    timeoutMs: 5_000,
    byReference: true,
  }),
  /** GET /firmware/{id}/audience: who the update check offers the build to now (asks the registry for the devices). */
  audience: defineMessage<EndpointCall<FirmwareIdParams, BuildAudienceQuery, undefined>, BuildAudience>('firmware.audience'),
  /** GET /devices/{hwid}/update-preview: the update check's answer for one device, without recording a sighting. */
  previewUpdate: defineMessage<EndpointCall<DeviceParams, UpdatePreviewQuery, undefined>, UpdatePreview>('firmware.update-preview'),
  /** Per-customer build count, bytes stored (binaries plus notes) and distinct build tags, for the admin customer list. */
  counts: defineMessage<
    { readonly customerIds: readonly string[] },
    Record<string, { readonly firmware: number; readonly storedBytes: number; readonly tags: readonly string[] }>
  >('firmware.counts'),
  /** The public keys that verify update-check answers, for GET /.well-known/jwks.json (beside identity's token keys). */
  updateSigningJwks: defineMessage<Record<string, never>, Jwks>('firmware.update-signing.jwks'),
  /** POST /admin/update-signing-keys/rotate. */
  rotateUpdateSigningKey: defineMessage<EndpointCall<NoParams, NoParams, RotateUpdateSigningKeyRequest | undefined>, UpdateSigningKeys>(
    'firmware.update-signing.rotate',
  ),
  /** Identity deletes a customer: every row and stored file of it in this app goes (idempotent). */
  eraseCustomer: defineMessage<CustomerErasure, CustomerErased>('firmware.erase-customer', { timeoutMs: CUSTOMER_ERASURE_TIMEOUT_MS }),
} as const;

export const FirmwareEvents = {
  /** Published by the firmware app after every change of a customer's builds (broadcast). */
  changed: defineEvent<FirmwareChanged>('firmware.changed', 'broadcast'),
  /** The update-answer keys changed (a rotation): every firmware replica reloads them (broadcast). */
  updateSigningKeysChanged: defineEvent<Record<string, never>>('firmware.update-signing.changed', 'broadcast'),
  /** Published by the gateway when a /dl link to a binary or notes is served (not on HEAD). */
  downloaded: defineEvent<FirmwareDownloaded>('firmware.downloaded', 'queue'),
} as const;
