import { createRequire } from 'node:module';
import { trace, type Tracer } from '@opentelemetry/api';
import type { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import type { Instrumentation } from '@opentelemetry/instrumentation';

/**
 * The SDK, its exporter and the instrumentations, loaded on first use: some 300 modules, a third of
 * a second of CPU at every start of a service whose telemetry is off. They are CommonJS packages (an
 * `import` of them loads the same files), so they load synchronously and `startTelemetry` stays so.
 */
const loadCommonJs = createRequire(import.meta.url);
const sdkNode = (): typeof import('@opentelemetry/sdk-node') => loadCommonJs('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
const otlpExporter = (): typeof import('@opentelemetry/exporter-trace-otlp-http') =>
  loadCommonJs('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');

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

/**
 * Query parameters whose values never reach a span (`url.query`, `url.full`): OAuth's (`code`,
 * `state`, `code_verifier`, `client_secret`), tokens and keys by their usual names, and the
 * instrumentation's own defaults (signed-URL signatures).
 */
export const REDACTED_QUERY_PARAMS: readonly string[] = [
  'code',
  'state',
  'code_verifier',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'api_key',
  'apikey',
  'key',
  'password',
  'secret',
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Goog-Signature',
];

/**
 * `url.full` and `url.query` of an outgoing request with the values of REDACTED_QUERY_PARAMS
 * replaced (as the HTTP instrumentation does for node:http; undici's does not redact).
 */
export function redactedUrlAttributes(path: string, origin: string): Record<string, string> {
  let url: URL;
  try {
    url = new URL(path, origin);
  } catch {
    return {};
  }
  for (const name of REDACTED_QUERY_PARAMS) if (url.searchParams.has(name)) url.searchParams.set(name, 'REDACTED');
  url.username = '';
  url.password = '';
  return { 'url.full': url.toString(), 'url.query': url.search };
}

/**
 * `db.query.text` of a MongoDB span: the command's own top-level fields with every value `?`
 * (`{"find":"?","filter":"?","limit":"?"}`). Values are never recorded, nor the field names inside
 * documents and filters: a run event's payload keys are the agent's text. The span's name and
 * attributes already say the operation and the collection.
 */
export function mongoStatement(command: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.keys(command).map((field) => [field, '?'])));
}

/**
 * The instrumentations every service gets: HTTP (server and client), Koa, MongoDB, ioredis,
 * undici/fetch. Kafka is traced by `@ars/bus` itself (a PRODUCER span per message, parented on the
 * context the message carries — an outbox entry's too —, a CONSUMER span per handled message):
 * kafkajs' instrumentation would start a new trace for every fetched batch and for the outbox
 * relay's sends.
 */
export function standardInstrumentations(): Instrumentation[] {
  const { HttpInstrumentation } = loadCommonJs('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { KoaInstrumentation } = loadCommonJs('@opentelemetry/instrumentation-koa') as typeof import('@opentelemetry/instrumentation-koa');
  const { MongoDBInstrumentation } = loadCommonJs('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  const { IORedisInstrumentation } = loadCommonJs('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { UndiciInstrumentation } = loadCommonJs('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  return [
    new HttpInstrumentation({
      // Probes would drown the traces.
      ignoreIncomingRequestHook: (request) => HEALTH_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
      // No header is recorded (no headersToSpanAttributes): Authorization and cookies stay out.
      redactedQueryParams: [...REDACTED_QUERY_PARAMS],
      redactedQueryParamsServer: [...REDACTED_QUERY_PARAMS],
    }),
    new KoaInstrumentation(),
    new MongoDBInstrumentation({ enhancedDatabaseReporting: false, dbStatementSerializer: mongoStatement }),
    // The command's name only: keys hold user and token ids, values anything.
    new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    new UndiciInstrumentation({ startSpanHook: (request) => redactedUrlAttributes(request.path, request.origin) }),
  ];
}

let running:
  | {
      sdk: NodeSDK;
      serviceName: string;
      otlpEndpoint: string;
      /** Providers of the processes this one reports for (reportingTracer), by their service name. */
      reported: Map<string, tracing.BasicTracerProvider>;
      stopped: Promise<void> | undefined;
    }
  | undefined;

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
  const { NodeSDK, core, resources } = sdkNode();
  const { OTLPTraceExporter } = otlpExporter();
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    resource: resources.resourceFromAttributes({
      ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}),
      'process.pid': process.pid,
      'process.runtime.name': 'nodejs',
      'process.runtime.version': process.versions.node,
    }),
    // Not the process detector: its `process.command_args` is the whole command line (a script, a flag
    // with a value) and `process.owner` the user. The environment's OTEL_RESOURCE_ATTRIBUTES and the host are kept.
    resourceDetectors: [resources.envDetector, resources.hostDetector],
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
  running = { sdk, serviceName: options.serviceName, otlpEndpoint: options.otlpEndpoint, reported: new Map(), stopped: undefined };
  return handle();
}

function handle(): Telemetry {
  return { enabled: true, shutdown: shutdownTelemetry };
}

/** Stops the running SDK (flushing spans). Resolves when there is none. */
export async function shutdownTelemetry(): Promise<void> {
  const current = running;
  if (!current) return;
  current.stopped ??= Promise.all([current.sdk.shutdown(), ...[...current.reported.values()].map((provider) => provider.shutdown())]).then(
    () => {
      if (running === current) running = undefined;
    },
    (error: unknown) => {
      if (running === current) running = undefined;
      throw error;
    },
  );
  await current.stopped;
}

/**
 * A tracer whose spans carry another `service.name` than this process's: for a process this one
 * runs and reports for but that cannot report itself (sandboxes reports its harness processes,
 * stand-ins without network included, from their events). Same exporter and endpoint as the
 * process's own spans. Without telemetry: the global (no-op) tracer.
 */
export function reportingTracer(serviceName: string, reporter = '@ars/telemetry'): Tracer {
  const current = running;
  if (!current) return trace.getTracer(reporter);
  let provider = current.reported.get(serviceName);
  if (!provider) {
    const { resources, tracing } = sdkNode();
    const { OTLPTraceExporter } = otlpExporter();
    provider = new tracing.BasicTracerProvider({
      resource: resources.resourceFromAttributes({ 'service.name': serviceName, 'ars.reported_by': current.serviceName }),
      spanProcessors: [new tracing.BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(current.otlpEndpoint) }))],
    });
    current.reported.set(serviceName, provider);
  }
  return provider.getTracer(reporter);
}

/** True when an SDK is running in this process. */
export function telemetryEnabled(): boolean {
  return running !== undefined;
}
