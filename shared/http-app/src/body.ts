import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { AppError } from '@ars/errors';

export const DEFAULT_BODY_LIMIT = '1mb';
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

interface BodyError extends Error {
  status?: number;
  type?: string;
}

/**
 * JSON body parsing with a size limit. The contract has no 413/415 codes: malformed JSON, an
 * oversized body and a body that is not `application/json` are all 400 BAD_REQUEST naming the problem.
 */
export function jsonBody(limit: string = DEFAULT_BODY_LIMIT): Middleware {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limit,
    parsedMethods: BODY_METHODS,
    onError: (error: BodyError) => {
      if (error.type === 'entity.too.large' || error.status === 413) {
        throw AppError.badRequest(`Request body exceeds the ${limit} limit`);
      }
      if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported' || error.status === 415) {
        throw AppError.badRequest('Unsupported body encoding; send UTF-8 JSON');
      }
      if (error.type === 'request.size.invalid' || error.type === 'request.aborted') {
        throw AppError.badRequest('Request body was incomplete');
      }
      throw AppError.badRequest('Malformed JSON body');
    },
  });
  return async (ctx, next) => {
    const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
    if (BODY_METHODS.includes(ctx.method) && hasBody && !ctx.is('application/json', 'application/*+json')) {
      throw AppError.badRequest('Content-Type must be application/json');
    }
    return parse(ctx, next);
  };
}
