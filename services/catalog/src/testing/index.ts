// The catalog's test entry point (`@ars/catalog/testing`): for other workspaces' tests, not built into dist/.
export { startCatalogHarness } from './catalogHarness.js';
export type { CatalogHarness, DevInstallation } from './catalogHarness.js';
