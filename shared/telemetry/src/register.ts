/**
 * Preload entry: `node --import @ars/telemetry/register dist/main.js`.
 *
 * When `OTEL_EXPORTER_OTLP_ENDPOINT` is set, registers the ESM loader hook (so modules imported by
 * ESM code — koa, mongodb, kafkajs, ioredis — can be patched) and starts the SDK before the service's
 * own modules load. Without the variable it does nothing at all.
 */
import { register } from 'node:module';

if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const { startTelemetryFromEnvironment } = await import('./env.js');
  const { shutdownTelemetry } = await import('./telemetry.js');
  startTelemetryFromEnvironment();
  // Flush spans on a normal exit when nothing else (the service runner) shut telemetry down.
  process.once('beforeExit', () => void shutdownTelemetry());
}

export {};
