import type { IncomingMessage } from 'node:http';
import type { CustomerRef, EndpointDef, StagedFile } from '@app/contracts';
import type { RequestState } from '../http/request-state.js';
import type { MultipartStager } from './multipart-stager.js';

/** A multipart/form-data upload: each declared part staged in the object store, within the customer's limits. */
export async function stageMultipartUpload(
  stager: MultipartStager,
  endpoint: EndpointDef,
  req: IncomingMessage,
  customer: CustomerRef | null,
  firmwareMaxBytes: number,
  state: RequestState,
): Promise<Record<string, StagedFile>> {
  if (endpoint.body.kind !== 'multipart') throw new Error(`${endpoint.operationId}: not a multipart body`);
  if (!customer) throw new Error(`${endpoint.operationId}: multipart bodies need a tenant endpoint`);
  const parts = await stager.stage(req, endpoint.body, { isSandbox: customer.isSandbox, firmwareMaxBytes }, state);
  state.bytesIn = parts.bytesIn;
  return parts.files;
}
