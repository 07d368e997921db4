// A minimal W3C trace-context propagator and AsyncLocalStorage context manager, standing in for a
// registered OpenTelemetry SDK in tests (the SDK packages are not dependencies of @ars/bus).
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, context, propagation, trace, type Context, type ContextManager, type TextMapPropagator } from '@opentelemetry/api';

class AlsContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

const w3c: TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const span = trace.getSpanContext(ctx);
    if (!span) return;
    setter.set(carrier, 'traceparent', `00-${span.traceId}-${span.spanId}-0${(span.traceFlags & 1).toString(16)}`);
    if (span.traceState) setter.set(carrier, 'tracestate', span.traceState.serialize());
  },
  extract(ctx, carrier, getter) {
    const header = getter.get(carrier, 'traceparent');
    const match = TRACEPARENT.exec(Array.isArray(header) ? (header[0] ?? '') : (header ?? ''));
    if (!match) return ctx;
    return trace.setSpanContext(ctx, { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16), isRemote: true });
  },
  fields: () => ['traceparent', 'tracestate'],
};

/** Registers the stand-in SDK pieces; returns the function that unregisters them. */
export function registerTestTracing(): () => void {
  const manager = new AlsContextManager();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(w3c);
  return () => {
    propagation.disable();
    context.disable();
  };
}

/** A context whose active span is a sampled span with the given ids. */
export function contextWithSpan(traceId: string, spanId: string): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: 1 });
}
