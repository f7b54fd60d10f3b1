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

/** The update check's answer: the items, or "not modified" when If-None-Match matched. */
export type UpdateCheckResult =
  /** `body`: the JSON array of update items, serialized once by the firmware app (answers are reused). */
  | { readonly kind: 'items'; readonly body: string; readonly etag: string; readonly maxAgeSeconds: number }
  | { readonly kind: 'not-modified'; readonly etag: string; readonly maxAgeSeconds: number };

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
  /** Identity deletes a customer: every row and stored file of it in this app goes (idempotent). */
  eraseCustomer: defineMessage<CustomerErasure, CustomerErased>('firmware.erase-customer', { timeoutMs: CUSTOMER_ERASURE_TIMEOUT_MS }),
} as const;

export const FirmwareEvents = {
  /** Published by the firmware app after every change of a customer's builds (broadcast). */
  changed: defineEvent<FirmwareChanged>('firmware.changed', 'broadcast'),
  /** Published by the gateway when a /dl link to a binary or notes is served (not on HEAD). */
  downloaded: defineEvent<FirmwareDownloaded>('firmware.downloaded', 'queue'),
} as const;
