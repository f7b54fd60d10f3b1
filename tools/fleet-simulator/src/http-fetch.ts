import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/**
 * A `fetch` over node:http that sends from a chosen local address, so that each virtual
 * device can be its own client address (any 127.x.y.z on loopback) and the service's
 * per-address limits see a fleet, not one host. Follows redirects (the /dl link may redirect
 * to the object store). Enough for the device client: method, headers, string bodies, signal.
 */
export function fetchFrom(localAddress: string): typeof fetch {
  const fetchVia = async (input: string | URL | Request, init: RequestInit = {}, hops = 0): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : String(init.body);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = send(url, { method: init.method ?? 'GET', headers, localAddress, agent: false, signal: init.signal ?? undefined }, resolve);
      req.on('error', reject);
      req.end(body);
    });
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if ([301, 302, 303, 307, 308].includes(status) && location && (init.redirect ?? 'follow') === 'follow') {
      response.resume();
      if (hops >= 5) throw new TypeError('too many redirects');
      const next = new URL(location, url);
      const method = status === 303 ? 'GET' : init.method;
      const nextHeaders = new Headers(init.headers);
      if (next.host !== url.host) nextHeaders.delete('authorization');
      return fetchVia(next, { ...init, method, headers: nextHeaders, body: status === 303 ? undefined : init.body }, hops + 1);
    }
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) value.forEach((v) => responseHeaders.append(name, v));
      else if (value !== undefined) responseHeaders.set(name, value);
    }
    const noBody = status === 204 || status === 304 || (init.method ?? 'GET') === 'HEAD';
    if (noBody) response.resume();
    return new Response(noBody ? null : (Readable.toWeb(response) as ReadableStream), { status, statusText: response.statusMessage, headers: responseHeaders });
  };
  return fetchVia;
}
