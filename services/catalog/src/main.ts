// The catalog service: owns installations, repositories, agents (owned and presets), models and the per-user model policy.
import { checkServiceConfiguration } from '@ars/service/configuration';
import { catalogConfiguration, loadCatalogSettings } from './config.js';

// The configuration first, before the service's modules load (about three quarters of a start's CPU): a
// refused one is its one line and exit 1 at once.
checkServiceConfiguration(catalogConfiguration, loadCatalogSettings);
const { startCatalog } = await import('./catalog.js');
await startCatalog();
