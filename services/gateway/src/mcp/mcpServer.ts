// The official SDK's low-level Server for one MCP request (stateless: a new one per POST, bound to
// the caller): initialize (2025-11-25, tools.listChanged false), ping, tools/list (the tools the
// token's scopes allow) and tools/call.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from '../deps.js';
import type { Principal } from '../auth/state.js';
import { argumentsProblem, callTool } from './toolCalls.js';
import { MCP_TOOLS, toolsFor, type McpTool } from './tools.js';

export const MCP_SERVER_INFO = { name: 'agent-run-service', version: '0.1.0' } as const;

const ERROR_SHAPE = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'status', 'message', 'suggestion'],
      properties: { code: { type: 'string' }, status: { type: 'integer' }, message: { type: 'string' }, suggestion: { type: 'string' } },
    },
  },
};

/** As tools/list shows a tool: its output schema accepts its success or the error shape (a client validates even isError results). */
export function listedTool(tool: McpTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as { type: 'object'; [key: string]: unknown },
    outputSchema: { type: 'object' as const, anyOf: [{ type: 'object', required: [...tool.successKeys] }, ERROR_SHAPE] },
    annotations: { title: tool.title, ...tool.annotations },
  };
}

export function mcpServerFor(gateway: Gateway, principal: Principal): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolsFor(principal.scopes).map(listedTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = MCP_TOOLS.find((candidate) => candidate.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.MethodNotFound, `Unknown tool: ${request.params.name}`);
    const args = request.params.arguments ?? {};
    const problem = argumentsProblem(tool, args);
    if (problem) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${problem}`);
    try {
      return await callTool(gateway, principal, tool, args);
    } catch (error) {
      gateway.logger.error({ err: error, tool: tool.name }, 'tool call failed unexpectedly');
      throw new McpError(ErrorCode.InternalError, 'Internal error handling the tool call');
    }
  });
  return server;
}
