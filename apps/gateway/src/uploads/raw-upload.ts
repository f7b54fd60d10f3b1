import type { IncomingMessage } from 'node:http';
import { type CustomerRef, type EndpointDef, GatewayErrors, type StagedFile } from '@app/contracts';
import type { RequestState } from '../http/request-state.js';
import type { BodyStager } from './body-stager.js';

/**
 * A raw upload (a `stream` body) staged in the object store: its media type checked against
 * the endpoint's list, its size against the customer's limit.
 */
export async function stageRawUpload(
  stager: BodyStager,
  endpoint: EndpointDef,
  req: IncomingMessage,
  customer: CustomerRef | null,
  contentType: string,
  state: RequestState,
): Promise<StagedFile> {
  if (endpoint.body.kind !== 'stream') throw new Error(`${endpoint.operationId}: not a stream body`);
  if (!customer) throw new Error(`${endpoint.operationId}: stream bodies need a tenant endpoint`);
  const accepted = endpoint.body.contentTypes;
  if (accepted && !accepted.includes(contentType.split(';')[0].trim().toLowerCase())) {
    throw GatewayErrors.unsupported_media_type({ accepted: accepted.join(' or ') });
  }
  const staged = await stager.stage(req, endpoint.body.maxBytes(customer), contentType);
  state.bytesIn = staged.sizeBytes;
  return staged;
}
