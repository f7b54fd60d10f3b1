import { ErrorCode } from '../errors.js';
import { defineErrors } from '../errors/define-errors.js';
import { INSTANT_RANGE_RULE } from '../storable.js';
import { MAX_TAGS_PER_BUILD } from './firmware.schemas.js';

/**
 * The firmware errors (docs/api.md "Builds", "Rollouts", "Tags" and the update check), raised by
 * apps/firmware and listed by its endpoints (firmware, rollout and tags endpoints).
 */
export const FirmwareErrors = defineErrors('firmware', {
  build_not_found: { category: ErrorCode.NotFound, message: 'firmware build not found' },
  build_notes_not_found: { category: ErrorCode.NotFound, message: 'this build has no release notes' },
  build_conflict: {
    category: ErrorCode.Conflict,
    message: 'a build with this hw_name, hw_version, fw_name, fw_version and fw_type already exists with different content',
  },
  /** PATCH with an If-Match that is not the build's current ETag. */
  build_etag_mismatch: {
    category: ErrorCode.PreconditionFailed,
    message: (p: { etag: string }) => `If-Match does not match the current ETag ${p.etag}: the build changed, read it again`,
  },
  build_tags_too_many: { category: ErrorCode.BadRequest, message: `a build has at most ${MAX_TAGS_PER_BUILD} tags` },
  /** The name stayed taken by a row that kept vanishing while the upload was stored. */
  build_upload_incomplete: { category: ErrorCode.Unavailable, message: 'firmware upload could not be completed, try again' },

  // The upload's parts and query (docs/api.md, firmware upload); a part missing or over its
  // limit is the gateway's multipart_part_missing / upload_too_large, wherever it is noticed.
  /** A staged part whose size or checksum is not usable (`fault`: which). */
  upload_part_invalid: { category: ErrorCode.BadRequest, message: (p: { part: string; fault: string }) => `${p.part} ${p.fault} is invalid` },
  /** POST /firmware/parse: the staged firmware part is not usable. */
  parse_part_invalid: { category: ErrorCode.BadRequest, message: 'firmware part is invalid' },
  /** The staged binary vanished before it was read. */
  firmware_unreadable: { category: ErrorCode.Unavailable, message: 'the uploaded firmware could not be read back, try again' },
  build_value_mismatch: {
    category: ErrorCode.BadRequest,
    message: (p: { field: string; fromPath: string; fromQuery: string }) =>
      `${p.field} differs between the path (${p.fromPath}) and the query (${p.fromQuery})`,
  },
  build_value_missing: { category: ErrorCode.BadRequest, message: (p: { field: string }) => `${p.field} is required (in the path or the query)` },
  build_date_out_of_range: { category: ErrorCode.BadRequest, message: `build_date ${INSTANT_RANGE_RULE}` },

  // The what string of an upload (422): which one, and whether the query agrees with it.
  what_index_out_of_range: {
    category: ErrorCode.Unprocessable,
    message: (p: { index: number; total: number }) =>
      `what_index ${p.index} is out of range: the binary has ${p.total === 0 ? 'no what string' : `${p.total} what string${p.total === 1 ? '' : 's'}`}`,
  },
  what_index_beyond_read: {
    category: ErrorCode.Unprocessable,
    message: (p: { index: number; read: number }) => `what_index ${p.index} is beyond the first ${p.read} what strings, which are all that is read`,
  },
  what_string_missing: {
    category: ErrorCode.Unprocessable,
    message: 'the binary has no what string (@(#)<fw_version>, <build_date>, <fw_type>) and fw_version is missing',
  },
  what_string_unparsable: {
    category: ErrorCode.Unprocessable,
    message: (p: { index: number; error: string }) => `what string ${p.index} cannot be parsed: ${p.error}`,
  },
  /** fw_version, fw_type or build_date of the query differs from the what string's. */
  what_string_contradicted: {
    category: ErrorCode.Unprocessable,
    message: (p: { field: string; declared: string; found: string }) => `${p.field} ${p.declared} contradicts the what string (${p.found})`,
  },

  // The update check and what it needs.
  update_check_invalid: { category: ErrorCode.BadRequest, message: 'invalid update check' },
  /** The customer's builds could not be loaded into the update-check index. */
  builds_unavailable: { category: ErrorCode.Unavailable, message: 'firmware builds unavailable, try again' },
  /** The registry could not count the devices per tag (`reason`: its answer). */
  device_tag_counts_unavailable: { category: ErrorCode.Unavailable, message: (p: { reason: string }) => `device tag counts unavailable: ${p.reason}` },

  // Customer-wide tags (rename, delete).
  tag_name_invalid: { category: ErrorCode.BadRequest, message: 'tag does not match the tag pattern' },
  tag_rename_target_invalid: { category: ErrorCode.BadRequest, message: 'to must be a tag name matching the tag pattern' },

  // Staged rollouts (docs/api.md "Rollouts").
  rollout_not_found: { category: ErrorCode.NotFound, message: 'this build has no rollout' },
  /** A second rollout while one is scheduled, running, paused or halted. */
  rollout_exists: { category: ErrorCode.Conflict, message: 'this build already has a rollout that is not completed or aborted' },
  rollout_build_withdrawn: { category: ErrorCode.Conflict, message: 'a withdrawn build cannot be rolled out' },
  /** pause, resume, advance or abort from a state that does not allow it. */
  rollout_transition_invalid: {
    category: ErrorCode.Conflict,
    message: (p: { action: string; state: string }) => `cannot ${p.action} a rollout that is ${p.state}`,
  },
  rollout_stages_invalid: { category: ErrorCode.BadRequest, message: 'stage percents must be strictly increasing' },
  rollout_min_devices_invalid: { category: ErrorCode.BadRequest, message: 'min_devices must name one value per stage' },
  rollout_start_invalid: { category: ErrorCode.BadRequest, message: (p: { days: number }) => `start_at must be at most ${p.days} days ahead` },
  /** The registry could not count the audience (stage thresholds, preview). */
  rollout_audience_unavailable: { category: ErrorCode.Unavailable, message: 'devices could not be counted for the rollout, try again' },
});
