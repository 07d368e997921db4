// What of POST /mcp needs the official SDK (and zod under it): the JSON-RPC checks against its
// request schemas, then one stateless Server and transport for the request. The HTTP edge
// (http/mcpTransport.ts) loads this module at the first MCP request, not with the gateway: the SDK
// and zod are 170 of the gateway's 370 ECMAScript modules, a third of a CPU-second that every start
// paid, though most gateway processes serve no MCP request for a while, or ever.
import type { RouterContext } from '@ars/http-app';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Gateway } from '../deps.js';
import { principalOf } from '../auth/authenticateToken.js';
import { mcpServerFor } from './mcpServer.js';

export { jsonRpcRefusal } from './jsonRpcRequest.js';

/** One request, one Server and one transport (stateless, JSON answers); both closed when the answer is sent. */
export async function answerWithSdk(gateway: Gateway, ctx: RouterContext, message: unknown): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const server = mcpServerFor(gateway, principalOf(ctx.state));
  await server.connect(transport);
  ctx.res.on('close', () => {
    void transport.close();
    void server.close();
  });
  // Every answer here is JSON (stateless, enableJsonResponse): a client that accepts anything, or only
  // JSON, is served like one sending the contract's `application/json, text/event-stream`, not refused 406.
  ctx.req.headers.accept = 'application/json, text/event-stream';
  // The SDK writes the answer itself; Koa's logging still sees the status it set.
  ctx.respond = false;
  await transport.handleRequest(ctx.req, ctx.res, message);
  ctx.status = ctx.res.statusCode;
}
