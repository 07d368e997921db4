// A run's trace in sandboxes: the run keeps the context its `run.requested` arrived in (through the
// queue, also across instances), and its harness turn is reported as spans made here from the
// harness's events — the harness process cannot report itself (a stand-in has no network; a real
// CLI is not instrumented), so sandboxes reports for it, under `service.name` `harness`.
import { SpanKind, SpanStatusCode, context, trace, type Context, type Span } from '@opentelemetry/api';
import { traceHeaders } from '@ars/bus';
import { reportingTracer } from '@ars/telemetry';
import type { HarnessEvent, HarnessStatus } from '../harness/index.js';

/** The `service.name` of the spans sandboxes reports for its harness processes. */
export const HARNESS_SERVICE_NAME = 'harness';

/** The most characters of a tool name in a span's name and attributes (it is the agent's text). */
const TOOL_NAME_CAP = 100;

/** What a tool call's span says of its outcome: never its input or output. */
export type ToolCallStatus = 'ok' | 'error' | 'unfinished';

/** From a `tool_call` event's payload (README of harness/, Events): an error result, a failed status or a non-zero exit is `error`. */
export function toolCallStatus(payload: Record<string, unknown>): ToolCallStatus {
  if (payload.status === 'unfinished') return 'unfinished';
  if (payload.isError === true) return 'error';
  if (payload.status === 'failed' || payload.status === 'declined' || payload.status === 'error') return 'error';
  if (typeof payload.exitCode === 'number' && payload.exitCode !== 0) return 'error';
  return 'ok';
}

export interface HarnessTrace {
  /** The harness span's context: active while the harness runs. */
  readonly context: Context;
  /**
   * `TRACEPARENT` (and `TRACESTATE`) of the harness span, for the harness process's environment —
   * the OpenTelemetry environment-carrier convention, so an instrumented harness joins the trace.
   * Empty when telemetry is off.
   */
  readonly env: Record<string, string>;
  /**
   * Runs `publish` (the event's way to Kafka) in the event's context: a `tool_call` event gets a span
   * of its own under the harness span (from the previous event's arrival to its own: the harnesses
   * report a tool call when its result is known), named by its sanitized tool name.
   */
  event<T>(event: HarnessEvent, sanitizedToolName: string | null, publish: () => Promise<T>): Promise<T>;
  /** Ends the harness span with the harness's status (the first call only). */
  end(status: HarnessStatus | 'crashed'): void;
}

/** Starts the harness span of a run (child of the active context: the run's). */
export function startHarnessTrace(input: { runId: string; harness: string; standIn: boolean }): HarnessTrace {
  const tracer = reportingTracer(HARNESS_SERVICE_NAME, '@ars/sandboxes');
  const parent = context.active();
  const span: Span = tracer.startSpan(
    `harness ${input.harness}`,
    { kind: SpanKind.INTERNAL, attributes: { 'ars.run.id': input.runId, 'ars.harness': input.harness, 'ars.harness.stand_in': input.standIn } },
    parent,
  );
  const harnessContext = trace.setSpan(parent, span);
  const headers = traceHeaders(harnessContext);
  const env: Record<string, string> = {};
  if (headers.traceparent) env.TRACEPARENT = headers.traceparent;
  if (headers.tracestate) env.TRACESTATE = headers.tracestate;
  let lastEventAt = Date.now();
  let ended = false;

  return {
    context: harnessContext,
    env,
    async event(event, sanitizedToolName, publish) {
      const at = Date.now();
      const since = lastEventAt;
      lastEventAt = at;
      if (event.type !== 'tool_call') return context.with(harnessContext, publish);
      const toolName = (sanitizedToolName ?? 'unknown').slice(0, TOOL_NAME_CAP);
      const status = toolCallStatus(event.payload);
      const toolSpan = tracer.startSpan(
        `tool_call ${toolName}`,
        { kind: SpanKind.INTERNAL, startTime: since, attributes: { 'ars.run.id': input.runId, 'ars.tool.name': toolName, 'ars.tool.status': status } },
        harnessContext,
      );
      if (status === 'error') toolSpan.setStatus({ code: SpanStatusCode.ERROR });
      toolSpan.end(at);
      return context.with(trace.setSpan(harnessContext, toolSpan), publish);
    },
    end(status) {
      if (ended) return;
      ended = true;
      span.setAttribute('ars.harness.status', status);
      span.setStatus(status === 'failed' || status === 'crashed' ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.OK });
      span.end();
    },
  };
}
