// The automations-engine service: owns automations, published versions, automation runs, node runs, dispatch events and timers.
import { startAutomationsEngine } from './automationsEngine.js';

await startAutomationsEngine();
