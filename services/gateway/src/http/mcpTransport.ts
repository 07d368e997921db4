import { isAppError } from '@ars/errors';
import { readRawBody, type RouterContext, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from './deps.js';
import { resolveBearer } from './authenticateToken.js';
import { limitPerToken } from './rateLimits.js';

/**
 * The JSON-RPC tool transport's HTTP edge (CONTRACT.md, External tool transport). What exists now:
 * PAT authentication and the per-PAT limit in the JSON-RPC envelope (-32001, -32002), parse and
 * request errors (-32700, -32600), notifications (202), CORS preflight and `GET` → 405. The tools
 * themselves arrive with the MCP issue: until then every method answers -32601.
 */
function rpcError(ctx: RouterContext, status: number, id: unknown, code: number, message: string): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}

export function mcpPreflight(gateway: Gateway): RouterMiddleware {
  return (ctx) => {
    ctx.set('Access-Control-Allow-Origin', gateway.publicOrigin);
    ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, Accept, Mcp-Protocol-Version');
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
  const perToken = limitPerToken(gateway);
  return async (ctx) => {
    try {
      ctx.state.principal = await resolveBearer(gateway, ctx.get('Authorization') || undefined);
      await perToken(ctx, async () => undefined);
    } catch (error) {
      if (!isAppError(error)) throw error;
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      if (error.code === 'UNAUTHORIZED') return rpcError(ctx, 401, null, -32001, error.message);
      if (error.code === 'RATE_LIMITED') return rpcError(ctx, 429, null, -32002, error.message);
      return rpcError(ctx, error.status, null, -32603, error.message);
    }
    let message: unknown;
    try {
      message = JSON.parse(await readRawBody(ctx));
    } catch (error) {
      if (isAppError(error)) return rpcError(ctx, 400, null, -32600, error.message);
      return rpcError(ctx, 400, null, -32700, 'Parse error: body is not valid JSON');
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return rpcError(ctx, 400, null, -32600, 'Invalid Request: expected a JSON-RPC 2.0 object');
    }
    const request = message as { jsonrpc?: unknown; id?: unknown; method?: unknown };
    if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
      return rpcError(ctx, 400, request.id, -32600, 'Invalid Request: jsonrpc must be "2.0" and method a string');
    }
    if (!('id' in request)) {
      ctx.status = 202;
      return;
    }
    rpcError(ctx, 200, request.id, -32601, `Method not found: ${request.method} (the tool transport is not available yet)`);
  };
}
