// The system tests' support as a package entry point (`@ars/system-tests/support`), for a service's
// test that needs the whole stack: no file outside test/ reaches in here by relative path.
export { startSystem, systemForSuite } from './system.js';
export type { System, SystemOptions } from './system.js';
export { newRunsUser } from './runs.js';
export type { RunsClient } from './runs.js';
