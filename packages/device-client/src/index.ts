export {
  type Jwks,
  REQUIRED_COMPONENTS,
  type SignedAnswer,
  type VerifiedSignature,
  type VerifyOptions,
  checkDigest,
  signatureBase,
  verifyAnswer,
} from './answer-signature.js';
export { type CheckResult, DeviceClient, type DeviceClientOptions, type DeviceIdentity, type UpdateItem } from './device-client.js';
export { type DownloadRequest, type DownloadResult, downloadVerified } from './download.js';
export { DeviceClientError, type DeviceClientErrorCode } from './errors.js';
export { backoffSeconds, delaySecondsOf, jitteredSeconds, nextPollSeconds, POLL_HEADER, type PollingSettings } from './polling.js';
export { algorithmOf, type FlattenedJws, type InstallReport, type ReportClaims, reportClaims, type ReportOutcome, reportUrl, signReport } from './report.js';
