import { ApiError, apiError } from './problem';
import { session } from './session';

export interface UploadProgress {
  readonly loaded: number;
  readonly total: number;
}

export interface UploadRequest {
  readonly method: 'POST' | 'PUT';
  /** A path of the API (the session adds `customer=` where needed). */
  readonly path: string;
  readonly body: FormData | Blob | string;
  readonly contentType?: string;
  readonly onProgress?: (progress: UploadProgress) => void;
}

function send(request: UploadRequest): Promise<{ status: number; body: unknown; retryAfter: string | null }> {
  return new Promise((resolve, reject) => {
    // XMLHttpRequest, not fetch: only it reports the upload's progress.
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, session.url(request.path));
    for (const [name, value] of Object.entries(session.headers(request.method))) xhr.setRequestHeader(name, value);
    if (request.contentType) xhr.setRequestHeader('Content-Type', request.contentType);
    xhr.upload.onprogress = (event) => request.onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : 0 });
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // a text answer
      }
      resolve({ status: xhr.status, body, retryAfter: xhr.getResponseHeader('Retry-After') });
    };
    xhr.onerror = () => reject(new ApiError('The upload failed: the connection to the service broke', 0));
    xhr.send(request.body);
  });
}

/** An upload with progress, through the session like every other request (CSRF, renewal, `customer=`). */
export async function upload<T>(request: UploadRequest): Promise<T> {
  await session.ready();
  let answer = await send(request);
  if (answer.status === 401) {
    await session.renew();
    answer = await send(request);
  }
  if (answer.status < 200 || answer.status > 299) throw apiError(answer.status, answer.body, answer.retryAfter);
  return answer.body as T;
}
