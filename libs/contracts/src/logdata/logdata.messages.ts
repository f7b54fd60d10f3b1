import { CUSTOMER_ERASURE_TIMEOUT_MS, type CustomerErased, type CustomerErasure } from '../messages/customer-erasure.js';
import type { EndpointCall } from '../endpoints/endpoint.js';
import type { FileRef } from '../files.js';
import { defineEvent, defineMessage } from '../messages/message.js';
import type { LogFile, LogFileCustomerQuery, LogFileListQuery, LogFilePage, LogFileParams } from './logdata.schemas.js';

export interface LogFileUploadResult {
  /** false for an identical re-upload (nothing changed). */
  readonly created: boolean;
  readonly file: LogFile;
}

export interface LogFileDownloaded {
  readonly customerId: string;
  readonly name: string;
  readonly at: string;
}

export interface CustomerCounts {
  readonly customerIds: readonly string[];
}
export type CountsByCustomer = Record<string, { readonly count: number; readonly storedBytes: number }>;

export const LogdataMessages = {
  upload: defineMessage<EndpointCall<LogFileParams, LogFileCustomerQuery, undefined>, LogFileUploadResult>('logdata.upload'),
  download: defineMessage<EndpointCall<LogFileParams, LogFileCustomerQuery, undefined>, FileRef>('logdata.download'),
  meta: defineMessage<EndpointCall<LogFileParams, LogFileCustomerQuery, undefined>, LogFile>('logdata.meta'),
  list: defineMessage<EndpointCall<Record<string, never>, LogFileListQuery, undefined>, LogFilePage>('logdata.list'),
  /** Per-customer file count and stored bytes, for the admin customer list. */
  counts: defineMessage<CustomerCounts, CountsByCustomer>('logdata.counts'),
  /** Identity deletes a customer: every row and stored file of it in this app goes (idempotent). */
  eraseCustomer: defineMessage<CustomerErasure, CustomerErased>('logdata.erase-customer', { timeoutMs: CUSTOMER_ERASURE_TIMEOUT_MS }),
} as const;

export const LogdataEvents = {
  /** Published by the gateway when a /dl link to a log file is served (not on HEAD). */
  downloaded: defineEvent<LogFileDownloaded>('logdata.downloaded', 'queue'),
} as const;
