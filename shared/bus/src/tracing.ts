import { ROOT_CONTEXT, context, propagation, trace, SpanKind, SpanStatusCode, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';

const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

const getter: TextMapGetter<Record<string, string>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/**
 * W3C `traceparent`/`tracestate` (whatever the registered propagator writes) for the active
 * OpenTelemetry context. With no SDK registered the propagator is a no-op and nothing is added.
 */
export function traceHeaders(active: Context = context.active()): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(active, headers, setter);
  return headers;
}

/**
 * The context W3C headers kept earlier carry (a queued run's, an automation run's), to continue
 * that trace later, elsewhere; without a `traceparent` (tracing off) the root context, so work
 * started from another trace's handler does not land in that one.
 */
export function traceContext(headers: Record<string, string> | undefined): Context {
  return headers?.traceparent ? propagation.extract(ROOT_CONTEXT, headers, getter) : ROOT_CONTEXT;
}

const tracer = () => trace.getTracer('@ars/bus');

/**
 * Runs `send` inside one PRODUCER span per message (`"<topic> publish"`) and returns the headers
 * to send with each message: its own headers with `traceparent` replaced by its producer span's.
 * A message's parent is the context its headers carry (an outbox entry keeps the `traceparent`
 * active when its state change was written; the relay publishes it later, outside that context),
 * else the active one. So a message is one hop of the trace that caused it, whoever sends it.
 */
export async function withProducerSpans<T>(
  topic: string,
  messageHeaders: Record<string, string>[],
  send: (headers: Record<string, string>[]) => Promise<T>,
): Promise<T> {
  const active = context.active();
  const spans = messageHeaders.map((headers) => {
    const parent = headers.traceparent ? propagation.extract(active, headers, getter) : active;
    return {
      span: tracer().startSpan(
        `${topic} publish`,
        { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': topic, 'messaging.operation.type': 'send' } },
        parent,
      ),
      parent,
    };
  });
  const withTrace = messageHeaders.map((headers, i) => {
    const { span, parent } = spans[i]!;
    return { ...headers, ...traceHeaders(trace.setSpan(parent, span)) };
  });
  try {
    const result = await send(withTrace);
    for (const { span } of spans) span.setStatus({ code: SpanStatusCode.OK });
    return result;
  } catch (error) {
    for (const { span } of spans) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    }
    throw error;
  } finally {
    for (const { span } of spans) span.end();
  }
}

/**
 * Runs `fn` inside a consumer span whose parent is the remote context carried in `headers`
 * (the producer's `traceparent`). Without an SDK this is a non-recording span that still carries
 * the remote trace id, so logs and outgoing messages of the handler stay in the same trace.
 */
export async function withConsumerSpan<T>(
  topic: string,
  headers: Record<string, string>,
  attributes: Record<string, string | number>,
  fn: () => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(context.active(), headers, getter);
  return tracer().startActiveSpan(
    `${topic} process`,
    { kind: SpanKind.CONSUMER, attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': topic, ...attributes } },
    parent,
    async (span) => {
      try {
        const result = await fn();
        span.setStatus({ code: SpanStatusCode.OK });
        return result;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        if (error instanceof Error) span.recordException(error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Runs `fn` once for a batch of messages, inside one consumer span per message (each the child of
 * its own producer's context, as `withConsumerSpan` makes it), so every message stays one hop of
 * the trace that sent it. `fn` runs in the first message's span.
 */
export async function withConsumerSpans<T>(
  topic: string,
  messages: { headers: Record<string, string>; attributes: Record<string, string | number> }[],
  fn: () => Promise<T>,
): Promise<T> {
  const active = context.active();
  const spans = messages.map(({ headers, attributes }) =>
    tracer().startSpan(
      `${topic} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': topic, 'messaging.batch.message_count': messages.length, ...attributes },
      },
      propagation.extract(active, headers, getter),
    ),
  );
  const first = spans[0];
  try {
    const result = await (first ? context.with(trace.setSpan(propagation.extract(active, messages[0]!.headers, getter), first), fn) : fn());
    for (const span of spans) span.setStatus({ code: SpanStatusCode.OK });
    return result;
  } catch (error) {
    for (const span of spans) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      if (error instanceof Error) span.recordException(error);
    }
    throw error;
  } finally {
    for (const span of spans) span.end();
  }
}
