#!/usr/bin/env node
// The harness CLI as the SDKs see it when the local provider isolates sandboxes: it runs the real
// CLI inside bubblewrap (src/providers/local/harnessShim.ts). Needs `npm run build`.
import { main } from '../dist/providers/local/harnessShim.js';

process.exitCode = await main(process.argv.slice(2));
