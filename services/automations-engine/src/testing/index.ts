// The automations engine's test entry point (`@ars/automations-engine/testing`): for tests, not built into dist/.
export { publishableGraph, startAutomationsHarness } from './automationsHarness.js';
export type { AutomationsHarness, AutomationTenant } from './automationsHarness.js';
