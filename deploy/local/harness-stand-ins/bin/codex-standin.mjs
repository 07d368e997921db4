#!/usr/bin/env node
// Launcher of the Codex stand-in (src/codexStandIn.ts): the path to give `codexPathOverride`.
// Needs the package built (`npx tsc -b tsconfig.build.json`) and `node` on the PATH of its environment.
import { main } from '../dist/codexStandIn.js';

process.exitCode = await main(process.argv.slice(2));
