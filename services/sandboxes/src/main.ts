// The sandboxes service: owns sandboxes, sandbox lifecycle events and logs; it executes harness sessions for runs.
import { checkServiceConfiguration } from '@ars/service/configuration';
import { loadSandboxesConfig, sandboxesConfiguration } from './config.js';

// The configuration first, before the service's modules load (about three quarters of a start's CPU): a
// refused one is its one line and exit 1 at once. (Whether isolation works here is checked at the start.)
checkServiceConfiguration(sandboxesConfiguration, loadSandboxesConfig);
const { startSandboxes } = await import('./sandboxes.js');
await startSandboxes();
