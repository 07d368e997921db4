#!/usr/bin/env node
// Launcher of the in-sandbox loopback forwarder (src/modelAccess/loopbackForwarder.ts), run in front
// of a harness CLI inside its sandbox. Needs `npm run build` first.
import { main } from '../dist/modelAccess/loopbackForwarder.js';

// The listener would keep the process alive: the CLI's end is the forwarder's.
process.exit(await main(process.argv.slice(2)));
