export { startTelemetry, shutdownTelemetry, telemetryEnabled, standardInstrumentations, tracesUrl } from './telemetry.js';
export type { Telemetry, TelemetryOptions } from './telemetry.js';
export { startTelemetryFromEnvironment, serviceNameFromEnvironment } from './env.js';
