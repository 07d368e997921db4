#!/usr/bin/env node
// Launcher of the stand-in MCP tool server (src/mcpToolServer.ts): `mcp-tool-server.mjs <tool name>…`,
// the command to hand a CLI as an MCP server. Needs the package built.
import { main } from '../dist/mcpToolServer.js';

process.exitCode = await main(process.argv.slice(2));
