// The runs service: owns runs, run events and run idempotency records.
import { checkServiceConfiguration } from '@ars/service/configuration';
import { runsConfiguration } from './config.js';

// The configuration first, before the service's modules load (about three quarters of a start's CPU): a
// refused one is its one line and exit 1 at once.
checkServiceConfiguration(runsConfiguration);
const { startRuns } = await import('./runs.js');
await startRuns();
