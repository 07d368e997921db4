import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { destination as pinoDestination, pino, stdSerializers, stdTimeFunctions, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { REDACTED, REDACT_PATHS, sanitizeErr, sanitizeLogFields, sanitizeLogText } from './redaction.js';

export type Logger = PinoLogger;
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

export interface LoggerOptions {
  /** The service name, on every line as `service`. */
  service: string;
  /** Default `info`. */
  level?: LogLevel | string;
  /** Where lines go; default stdout, written synchronously. Tests pass a stream to capture output. */
  destination?: DestinationStream;
  /** Extra redaction paths (pino path syntax) beside the standard ones. */
  redact?: readonly string[];
}

/** The active OpenTelemetry span's ids, when there is one. */
function traceFields(): Record<string, string> {
  const spanContext = trace.getSpanContext(context.active());
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/**
 * A pino JSON logger: ISO timestamps, level names, `service` on every line, `trace_id`/`span_id` of
 * the active span, secrets redacted as `[REDACTED]` (by path, and inside the message, top-level
 * string fields and the error's message and stack by @ars/sanitize), errors under `err` with their stack.
 */
export function createLogger(options: LoggerOptions): Logger {
  const settings = {
    level: options.level ?? 'info',
    base: { service: options.service },
    timestamp: stdTimeFunctions.isoTime,
    messageKey: 'msg',
    formatters: { level: (label: string) => ({ level: label }), log: sanitizeLogFields },
    mixin: traceFields,
    redact: { paths: [...REDACT_PATHS, ...(options.redact ?? [])], censor: REDACTED },
    serializers: { err: sanitizeErr(stdSerializers.err), error: sanitizeErr(stdSerializers.err), msg: sanitizeLogText },
  };
  // Synchronous stdout by default: lines keep their order and survive `process.exit` and crashes
  // (an asynchronous destination can lose or reorder the last lines written before an exit).
  return pino(settings, options.destination ?? pinoDestination({ dest: 1, sync: true }));
}

/** A child logger bound to one request: every line carries `request_id`. */
export function requestLogger(logger: Logger, requestId: string, bindings: Record<string, unknown> = {}): Logger {
  return logger.child({ request_id: requestId, ...bindings });
}
