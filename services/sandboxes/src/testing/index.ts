// The sandboxes service's test entry point (`@ars/sandboxes/testing`): for tests, not built into dist/.
export { commitToBare, fastSession, gitIn, isAlive, reportedHostPid, startSandboxesKit } from './sandboxesKit.js';
export type { RunMessages, SandboxesKit, TestRepo } from './sandboxesKit.js';
