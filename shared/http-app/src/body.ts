import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '@ars/errors';

export const DEFAULT_BODY_LIMIT = '1mb';
/**
 * The deepest a JSON request body may nest (objects and arrays). No route's body comes near it (an
 * automation graph is under 10); a body thousands deep would overflow the stack of whatever walks it
 * next (a validator, `JSON.stringify` on the way to a peer) and turn the caller's mistake into a fault.
 */
export const MAX_JSON_DEPTH = 64;
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** Whether a request of this method has its JSON body read (any other's is left unread): the kit's parser and the gateway's public one alike. */
export function carriesJsonBody(method: string): boolean {
  return BODY_METHODS.includes(method);
}

interface BodyError extends Error {
  status?: number;
  type?: string;
}

/**
 * JSON body parsing with a size limit. The contract has no 413/415 codes: malformed JSON, an
 * oversized body and a body that is not `application/json` are all 400 BAD_REQUEST naming the problem.
 */
export function jsonBody(limit: string = DEFAULT_BODY_LIMIT, skip?: (ctx: Context) => boolean): Middleware {
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
  const parseJson = async (ctx: Context, next: Next): Promise<void> => {
    const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
    if (hasBody && !ctx.is('application/json', 'application/*+json')) {
      throw AppError.badRequest('Content-Type must be application/json');
    }
    return parse(ctx, async () => {
      assertJsonDepth((ctx.request as { body?: unknown }).body);
      await next();
    });
  };
  // A GET, HEAD or OPTIONS passes straight on: the parser reads no body for it, so there is nothing
  // to check (its body stays undefined, depth 0), and no async frame of its own (issue 33).
  return (ctx, next) => (skip?.(ctx) || !carriesJsonBody(ctx.method) ? next() : parseJson(ctx, next));
}

/**
 * How deep a parsed JSON value nests (a scalar is 0, `[]` and `{}` are 1). Iterative: V8's
 * `JSON.parse` takes any depth without recursion, and this walk must not be the thing that overflows.
 * Stops counting once past `limit`.
 */
export function jsonDepth(value: unknown, limit: number = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop() as { value: unknown; depth: number };
    if (typeof current !== 'object' || current === null) continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) if (typeof child === 'object' && child !== null) pending.push({ value: child, depth: here });
  }
  return deepest;
}

/** A parsed body nested deeper than MAX_JSON_DEPTH is the caller's 400, refused before any route sees it. */
export function assertJsonDepth(body: unknown): void {
  if (jsonDepth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw AppError.badRequest(`Request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
  }
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** `'1mb'` → 1048576; numbers are bytes. */
export function parseByteLimit(limit: string | number): number {
  if (typeof limit === 'number') return limit;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  if (!match) throw new Error(`Invalid byte limit: ${limit}`);
  return Math.floor(Number(match[1]) * (UNITS[(match[2] ?? 'b').toLowerCase()] ?? 1));
}

/**
 * Reads the request body as UTF-8 text, up to `limit` (default 1mb), for routes that skip the JSON
 * body parser (`createHttpApp({ skipBodyParsing })`, e.g. a JSON-RPC endpoint with its own error
 * envelope). Oversized: 400 BAD_REQUEST naming the limit.
 */
export async function readRawBody(ctx: Context, limit: string | number = DEFAULT_BODY_LIMIT): Promise<string> {
  const max = parseByteLimit(limit);
  const shown = typeof limit === 'number' ? `${limit} bytes` : limit;
  const declared = ctx.request.length;
  if (declared !== undefined && declared > max) throw AppError.badRequest(`Request body exceeds the ${shown} limit`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw AppError.badRequest(`Request body exceeds the ${shown} limit`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
