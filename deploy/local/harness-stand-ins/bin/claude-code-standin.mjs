#!/usr/bin/env node
// Launcher of the Claude Code stand-in (src/claudeCodeStandIn.ts): the path to give
// `pathToClaudeCodeExecutable` (the SDK runs a .mjs path under node). Needs the package built.
import { main } from '../dist/claudeCodeStandIn.js';

process.exitCode = await main(process.argv.slice(2));
