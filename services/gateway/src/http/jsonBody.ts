import { AppError } from '@ars/errors';
import { assertJsonDepth, carriesJsonBody, readRawBody, type Middleware } from '@ars/http-app';

export const PUBLIC_BODY_LIMIT = '1mb';

/**
 * The JSON body of a public route, parsed after authentication, the per-PAT limit and the scope
 * check (the kit's parser is skipped under `/api/v1/svc`): an unauthenticated caller never has a
 * body read, and a malformed body still counts against its PAT's limit. Same rules and messages as
 * the kit: a non-JSON content type, malformed JSON, a body over 1mb and one nested deeper than
 * MAX_JSON_DEPTH are 400 BAD_REQUEST (nothing deeper reaches a service); an empty
 * body is `{}`-equivalent (`undefined`).
 */
export function parseJsonBody(limit: string = PUBLIC_BODY_LIMIT): Middleware {
  return async (ctx, next) => {
    const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
    if (carriesJsonBody(ctx.method) && hasBody) {
      if (!ctx.is('application/json', 'application/*+json')) throw AppError.badRequest('Content-Type must be application/json');
      const text = await readRawBody(ctx, limit);
      if (text.trim() !== '') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw AppError.badRequest('Malformed JSON body');
        }
        assertJsonDepth(parsed);
        (ctx.request as { body?: unknown }).body = parsed;
      }
    }
    await next();
  };
}
