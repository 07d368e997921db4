// What jest's global set-up and tear-down use (`@ars/testenv/jest-host`), apart from the suites' kit:
// they run outside jest's test environment, where the suites' hooks cannot be loaded.
export { startTestInfrastructure } from './infrastructure.js';
export type { TestInfrastructure } from './infrastructure.js';
export { SHARED_SYSTEM_VARIABLE, startSharedSystemHost } from './sharedSystemHost.js';
export type { SharedSystemHost } from './sharedSystemHost.js';
