// The mcp-registry service: owns each user's external tool server configurations (encrypted at rest).
import { checkServiceConfiguration } from '@ars/service/configuration';
import { loadMcpRegistrySettings, mcpRegistryConfiguration } from './config.js';

// The configuration first, before the service's modules load (about three quarters of a start's CPU): a
// refused one is its one line and exit 1 at once.
checkServiceConfiguration(mcpRegistryConfiguration, loadMcpRegistrySettings);
const { startMcpRegistry } = await import('./mcpRegistry.js');
await startMcpRegistry();
