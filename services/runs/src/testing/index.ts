// The runs service's test entry point (`@ars/runs/testing`): for tests, not built into dist/.
export { startRunsHarness } from './runsHarness.js';
export type { EventInput, RunsHarness, Tenant } from './runsHarness.js';
export { startRunsProcess } from './runsProcess.js';
export type { RunsProcess } from './runsProcess.js';
export { startSandboxesStandIn } from './sandboxesStandIn.js';
export type { SandboxesStandIn, StandInBehaviour } from './sandboxesStandIn.js';
