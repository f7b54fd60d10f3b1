/** A request body the gateway streamed into the object store before calling the app. */
export interface StagedFile {
  /** Object-store key of the staged bytes; the app takes ownership (keeps or deletes it). */
  readonly key: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly contentType: string;
}

/** What an app answers when the gateway should serve or link a stored file. */
export interface FileRef {
  readonly key: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly contentType: string;
  readonly lastModified: string;
  /** Suggested file name for Content-Disposition. */
  readonly filename?: string;
  /** Event the gateway publishes when a download through a /dl link is served (not for HEAD). */
  readonly onDownload?: { readonly subject: string; readonly payload: Record<string, unknown> };
}
