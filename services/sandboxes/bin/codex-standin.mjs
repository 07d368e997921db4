#!/usr/bin/env node
// Launcher of the Codex stand-in (src/harness/standins/codexStandIn.ts): the path to give
// `codexPathOverride`. Needs `npm run build` first and `node` on the PATH of its environment.
import { main } from '../dist/harness/standins/codexStandIn.js';

process.exitCode = await main(process.argv.slice(2));
