import { isAppError } from '@ars/errors';
import { readRawBody, type RouterContext, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from '../deps.js';
import { limitPerPat } from '../handlers/rateLimits.js';
import { resolveMcpBearer } from '../auth/mcpBearer.js';
import { failedAuthenticationWindow, mcpBearerChallenge } from '../domain/oauthClients.js';
import { RETRY_AFTER_SECONDS } from '../domain/limits.js';

/**
 * The JSON-RPC tool transport's HTTP edge (CONTRACT.md, External tool transport): authentication
 * before anything else (-32001 401), the per-PAT limit (-32002 429), a browser Origin not allowed
 * (-32003 403), parse and request errors (-32700, -32600 400), params that do not fit their method
 * (-32602, mcp/jsonRpcRequest.ts), then the official SDK's stateless
 * streamable HTTP transport with JSON answers and a Server bound to the caller (mcp/sdkAnswer.ts):
 * initialize, ping, tools/list, tools/call, notifications (202). CORS preflight; `GET` → 405.
 */
let sdkAnswer: Promise<typeof import('../mcp/sdkAnswer.js')> | undefined;

/** The SDK's part of the transport, loaded at the first MCP request (mcp/sdkAnswer.ts says why). */
function loadSdkAnswer(): Promise<typeof import('../mcp/sdkAnswer.js')> {
  sdkAnswer ??= import('../mcp/sdkAnswer.js').catch((error: unknown) => {
    sdkAnswer = undefined; // the next request tries again
    throw error;
  });
  return sdkAnswer;
}

function rpcError(ctx: RouterContext, status: number, id: unknown, code: number, message: string): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}

export function mcpPreflight(gateway: Gateway): RouterMiddleware {
  return (ctx) => {
    ctx.set('Access-Control-Allow-Origin', gateway.publicOrigin);
    ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, Accept, Mcp-Protocol-Version');
    ctx.set('Access-Control-Expose-Headers', 'WWW-Authenticate, X-Request-Id');
    ctx.set('Access-Control-Max-Age', '600');
    ctx.set('Vary', 'Origin');
    ctx.status = 204;
  };
}

export function mcpGet(): RouterMiddleware {
  return (ctx) => {
    ctx.set('Allow', 'POST, OPTIONS');
    rpcError(ctx, 405, null, -32600, 'Method not allowed: the transport accepts POST only');
  };
}

export function mcpPost(gateway: Gateway): RouterMiddleware {
  const perToken = limitPerPat(gateway);
  return async (ctx) => {
    try {
      ctx.state.principal = await resolveMcpBearer(gateway, ctx.get('Authorization') || undefined);
      await perToken(ctx, async () => undefined);
    } catch (error) {
      if (!isAppError(error)) throw error;
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      if (error.code === 'UNAUTHORIZED' && ctx.get('Authorization') && (await failedAuthenticationsExceeded(gateway, ctx.ip))) {
        ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
        return rpcError(ctx, 429, null, -32002, `Too many refused tokens from this address; retry after ${RETRY_AFTER_SECONDS} seconds`);
      }
      if (error.code === 'UNAUTHORIZED') {
        // RFC 9728: the client learns from the challenge where to get a token.
        ctx.set('WWW-Authenticate', mcpBearerChallenge(gateway.publicOrigin));
        return rpcError(ctx, 401, null, -32001, error.message);
      }
      if (error.code === 'RATE_LIMITED') return rpcError(ctx, 429, null, -32002, error.message);
      return rpcError(ctx, error.status, null, -32603, error.message);
    }
    const origin = ctx.get('Origin') || undefined;
    if (!originAllowed(gateway, origin)) return rpcError(ctx, 403, null, -32003, `Forbidden origin: ${origin ?? ''}`);
    // The SDK answers another content type 415 with a code the contract's table does not have.
    if (ctx.is('application/json') === false) return rpcError(ctx, 400, null, -32600, 'Invalid Request: Content-Type must be application/json');
    let message: unknown;
    try {
      message = JSON.parse(await readRawBody(ctx));
    } catch (error) {
      if (isAppError(error)) return rpcError(ctx, 400, null, -32600, error.message);
      return rpcError(ctx, 400, null, -32700, 'Parse error: body is not valid JSON');
    }
    const { jsonRpcRefusal, answerWithSdk } = await loadSdkAnswer();
    const refusal = jsonRpcRefusal(message);
    if (refusal) return rpcError(ctx, refusal.status, refusal.id, refusal.code, refusal.message);
    await answerWithSdk(gateway, ctx, message);
  };
}

/**
 * Counts a refused token from this address (a request with no token is a client discovering how to
 * authenticate, and is not counted); past `MCP_FAILED_AUTH_PER_MINUTE` the answer is 429 -32002.
 * The limiter down: counted as not exceeded, the 401 stands (the token was refused either way).
 */
async function failedAuthenticationsExceeded(gateway: Gateway, address: string): Promise<boolean> {
  try {
    return !(await gateway.limiter.consume([failedAuthenticationWindow(address, gateway.config.MCP_FAILED_AUTH_PER_MINUTE)])).allowed;
  } catch (error) {
    gateway.logger.warn({ err: error }, 'rate-limit backend unavailable');
    return false;
  }
}

/** A browser's Origin must be the gateway's own or one of MCP_ALLOWED_ORIGINS (DNS rebinding, cross-site pages); other clients send none. */
export function originAllowed(gateway: Gateway, origin: string | undefined): boolean {
  if (!origin) return true;
  return origin === gateway.publicOrigin || gateway.config.MCP_ALLOWED_ORIGINS.includes(origin);
}
