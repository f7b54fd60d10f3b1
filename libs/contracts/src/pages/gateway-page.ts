import { Type, type TSchema } from '@sinclair/typebox';
import { defineEndpoint, type EndpointDef, type ResponseDoc } from '../endpoints/endpoint.js';

/** What differs from one gateway page to the next. */
type GatewayPage<P extends TSchema> = Pick<EndpointDef<P>, 'operationId' | 'path' | 'tag' | 'summary' | 'params' | 'responses'> &
  Partial<Pick<EndpointDef<P>, 'errors'>>;

/**
 * A page or a page's file the gateway serves itself (the console, /login, /docs, /health and
 * their scripts and stylesheets): a public GET without a body whose refusals are problem+json.
 */
export function gatewayPage<P extends TSchema>(page: GatewayPage<P>): EndpointDef<P> {
  return defineEndpoint({
    method: 'GET',
    auth: { kind: 'public' },
    errorMode: 'json',
    body: { kind: 'none' },
    errors: [],
    target: { kind: 'gateway', handler: 'page' },
    ...page,
  });
}

/** An HTML answer. */
export const html = (description: string): ResponseDoc => ({ description, contentType: 'text/html', schema: Type.String() });
