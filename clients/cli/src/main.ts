#!/usr/bin/env node
// `ars`: the Agent Run Service's command line (README.md). The exit code says the outcome (README, Exit codes).
import { main } from './program.js';

await main(process.argv);
