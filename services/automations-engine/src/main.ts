// The automations-engine service: owns automations, published versions, automation runs, node runs, dispatch events and timers.
import { checkServiceConfiguration } from '@ars/service/configuration';
import { automationsEngineConfiguration } from './config.js';

// The configuration first, before the service's modules load (about three quarters of a start's CPU): a
// refused one is its one line and exit 1 at once.
checkServiceConfiguration(automationsEngineConfiguration);
const { startAutomationsEngine } = await import('./automationsEngine.js');
await startAutomationsEngine();
