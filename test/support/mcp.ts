// MCP on the whole stack: the official SDK's Client connected with a PAT, and a tiny authenticating
// proxy for MCP clients that cannot send an Authorization header (the conformance suite has no such
// flag): every request to `http://127.0.0.1:<random port>/mcp` is forwarded (method, headers, body)
// to `{baseUrl}/api/v1/svc/mcp` with `Authorization: Bearer <token>` added, and the answer passed back.
// - The tokens are taken in turn, one per request: each PAT may make 60 requests a minute and a
//   client under test may make more (the limit itself is the gateway's own tests').
// - It stands where the public origin would be: a browser `Origin` equal to the proxy's own is
//   forwarded as the gateway's (what a reverse proxy serving the gateway under its public URL does);
//   any other Origin is forwarded unchanged, for the gateway to judge.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer } from './accounts.js';

/** A tools/call result as the tests read it. */
export interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

/** The SDK's Client with its streamable HTTP transport on the stack's `/api/v1/svc/mcp`, authenticated with the PAT. */
export async function connectMcp(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'system-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/v1/svc/mcp`), { requestInit: { headers: bearer(token) } }));
  return client;
}

/** `client.callTool` typed as the tests read its answer. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

export interface McpProxy {
  /** The proxied MCP endpoint (`http://127.0.0.1:<port>/mcp`). */
  url: string;
  close(): Promise<void>;
}

// Hop-by-hop headers stay on their hop; `host` is the target's.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'host']);

function forwarded(headers: IncomingHttpHeaders, token: string, ownOrigin: string, targetOrigin: string): IncomingHttpHeaders {
  const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
  const origin = headers.origin === ownOrigin ? { origin: targetOrigin } : {};
  return { ...kept, ...origin, authorization: `Bearer ${token}` };
}

export async function startMcpProxy(baseUrl: string, tokens: readonly string[]): Promise<McpProxy> {
  if (tokens.length === 0) throw new Error('the MCP proxy needs at least one token');
  const target = new URL(`${baseUrl}/api/v1/svc/mcp`);
  let turn = 0;
  let ownOrigin = '';
  const server: Server = createServer((incoming, outgoing) => {
    turn = (turn + 1) % tokens.length;
    const upstream = request(
      target,
      { method: incoming.method, headers: forwarded(incoming.headers, tokens[turn] ?? '', ownOrigin, target.origin) },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`proxy: ${error.message}`);
    });
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  ownOrigin = `http://127.0.0.1:${port}`;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
