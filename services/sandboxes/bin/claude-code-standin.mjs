#!/usr/bin/env node
// Launcher of the Claude Code stand-in (src/harness/standins/claudeCodeStandIn.ts): the path to
// give `pathToClaudeCodeExecutable` (the SDK runs a .mjs path under node). Needs `npm run build`.
import { main } from '../dist/harness/standins/claudeCodeStandIn.js';

process.exitCode = await main(process.argv.slice(2));
