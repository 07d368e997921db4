// The runs service: owns runs, run events and run idempotency records.
import { startRuns } from './runs.js';

await startRuns();
