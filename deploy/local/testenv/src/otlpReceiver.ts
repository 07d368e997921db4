// An in-process OpenTelemetry collector for tests: the OTLP/HTTP trace receiver as a collector speaks
// it (`POST /v1/traces`, the JSON encoding the services' exporter sends — hex ids, `resourceSpans` →
// `scopeSpans` → `spans` —, gzip when asked; answered 200 with an ExportTraceServiceResponse, 415
// for an encoding it does not take, 400 for a body it cannot read), keeping every span it received.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type SpanAttributeValue = string | number | boolean | (string | number | boolean)[];

/** One received span, flattened: its resource's `service.name` beside its own fields. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  serviceName: string;
  attributes: Record<string, SpanAttributeValue>;
  resource: Record<string, SpanAttributeValue>;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export interface OtlpReceiver {
  /** The base URL to give as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** The received request bodies as sent (decompressed): what a test checks no secret reached. */
  rawBodies(): string[];
  close(): Promise<void>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: KeyValue[];
  status?: { code?: number };
}
interface ExportTraceServiceRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(value: AnyValue | undefined): SpanAttributeValue {
  if (!value) return '';
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map((item) => valueOf(item) as string | number | boolean);
  return '';
}

function attributesOf(list: KeyValue[] | undefined): Record<string, SpanAttributeValue> {
  return Object.fromEntries((list ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)]));
}

/** The spans of one OTLP JSON export request. */
export function spansOfExport(request: ExportTraceServiceRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind ?? 0,
          serviceName: String(resource['service.name'] ?? ''),
          attributes: attributesOf(span.attributes),
          resource,
          startTimeUnixNano: String(span.startTimeUnixNano),
          endTimeUnixNano: String(span.endTimeUnixNano),
          statusCode: span.status?.code ?? 0,
        });
      }
    }
  }
  return spans;
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts the receiver on a free local port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if ((request.url ?? '').split('?')[0] !== '/v1/traces') return answer(response, 404, { code: 5, message: 'not found: only /v1/traces is received here' });
      if (request.method !== 'POST') return answer(response, 405, { code: 12, message: 'POST only' });
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim();
      if (type !== 'application/json') return answer(response, 415, { code: 3, message: `unsupported content type ${type}: JSON only` });
      let text: string;
      let parsed: ExportTraceServiceRequest;
      try {
        const raw = Buffer.concat(chunks);
        text = (request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
        parsed = JSON.parse(text) as ExportTraceServiceRequest;
      } catch (error) {
        return answer(response, 400, { code: 3, message: `unreadable export request: ${(error as Error).message}` });
      }
      bodies.push(text);
      received.push(...spansOfExport(parsed));
      // ExportTraceServiceResponse: every span accepted.
      answer(response, 200, { partialSuccess: {} });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    rawBodies: () => [...bodies],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
