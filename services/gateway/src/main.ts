// The gateway: the only public ingress. Owns users, browser sessions, PATs and OAuth grants.
import { checkServiceConfiguration } from '@ars/service/configuration';
import { gatewayConfiguration } from './config.js';

// The configuration first, before the service's modules load (about three quarters of a start's CPU): a
// refused one is its one line and exit 1 at once.
checkServiceConfiguration(gatewayConfiguration);
const { startGateway } = await import('./gateway.js');
await startGateway();
