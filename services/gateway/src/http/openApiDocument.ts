import { createHash } from 'node:crypto';
import type { RouterMiddleware } from '@ars/http-app';
import { openApiText } from '../domain/openApi.js';
import { gatewayVersion } from '../version.js';

/**
 * `GET /api/v1/svc/openapi.json`: the public API as OpenAPI 3.1, without a token (it is public
 * documentation, the same text as clients/openapi.json). Built once; cacheable for an hour, with an
 * ETag so a client revalidating gets 304.
 */
export function openApiDocumentRoute(): RouterMiddleware {
  const text = openApiText(gatewayVersion());
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
  return (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('ETag', etag);
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/json';
    ctx.body = text;
  };
}
