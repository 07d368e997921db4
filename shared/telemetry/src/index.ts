export {
  startTelemetry,
  shutdownTelemetry,
  telemetryEnabled,
  standardInstrumentations,
  tracesUrl,
  reportingTracer,
  mongoStatement,
  redactedUrlAttributes,
  REDACTED_QUERY_PARAMS,
} from './telemetry.js';
export type { Telemetry, TelemetryOptions } from './telemetry.js';
export { startTelemetryFromEnvironment, serviceNameFromEnvironment } from './env.js';
