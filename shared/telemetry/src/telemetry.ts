import { NodeSDK, core, resources } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KoaInstrumentation } from '@opentelemetry/instrumentation-koa';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

export interface TelemetryOptions {
  /** `service.name` of every span. */
  serviceName: string;
  /** OTLP/HTTP base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); traces go to `<endpoint>/v1/traces`. Unset: telemetry off. */
  otlpEndpoint?: string | undefined;
  serviceVersion?: string;
  /** Replace the standard instrumentations (tests). */
  instrumentations?: Instrumentation[];
}

export interface Telemetry {
  /** True when an SDK is running (an endpoint was configured). */
  readonly enabled: boolean;
  /** Flushes pending spans and stops the SDK; a no-op when off. Safe to call twice. */
  shutdown(): Promise<void>;
}

const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

/** The instrumentations every service gets: HTTP (server and client), Koa, kafkajs, MongoDB, ioredis, undici/fetch. */
export function standardInstrumentations(): Instrumentation[] {
  return [
    new HttpInstrumentation({
      // Probes would drown the traces.
      ignoreIncomingRequestHook: (request) => HEALTH_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
    }),
    new KoaInstrumentation(),
    new KafkaJsInstrumentation(),
    new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    new IORedisInstrumentation(),
    new UndiciInstrumentation(),
  ];
}

let running: { sdk: NodeSDK; serviceName: string; stopped: Promise<void> | undefined } | undefined;

const OFF: Telemetry = { enabled: false, shutdown: async () => undefined };

export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Starts the OpenTelemetry Node SDK: OTLP/HTTP trace exporter, W3C trace-context (+ baggage)
 * propagation, the standard instrumentations. Off — a no-op returning a shutdown function — unless an
 * endpoint is configured. Starting twice returns the running instance (the preload usually wins).
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (running) return handle();
  if (!options.otlpEndpoint) return OFF;
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    ...(options.serviceVersion ? { resource: resources.resourceFromAttributes({ 'service.version': options.serviceVersion }) } : {}),
    traceExporter: new OTLPTraceExporter({ url: tracesUrl(options.otlpEndpoint) }),
    textMapPropagator: new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
    instrumentations: options.instrumentations ?? standardInstrumentations(),
    // Traces only: no metric readers or log exporters from the environment's defaults.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  running = { sdk, serviceName: options.serviceName, stopped: undefined };
  return handle();
}

function handle(): Telemetry {
  return { enabled: true, shutdown: shutdownTelemetry };
}

/** Stops the running SDK (flushing spans). Resolves when there is none. */
export async function shutdownTelemetry(): Promise<void> {
  const current = running;
  if (!current) return;
  current.stopped ??= current.sdk.shutdown().finally(() => {
    if (running === current) running = undefined;
  });
  await current.stopped;
}

/** True when an SDK is running in this process. */
export function telemetryEnabled(): boolean {
  return running !== undefined;
}
