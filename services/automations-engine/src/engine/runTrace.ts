// An automation run is one trace: a span marks its trigger (a child of the trigger's request when
// that is traced), its W3C headers are kept on the run, and every node run that ends becomes a span
// under it, from the node's start to its end — whichever instance, pass or message ended it. The
// run's effects (an agent node's run start) are performed in that context too, so an agent run of
// a node continues the automation run's trace through runs and sandboxes.
import { SpanKind, SpanStatusCode, context, trace, type Context } from '@opentelemetry/api';
import { traceContext, traceHeaders } from '@ars/bus';
import type { FlowGraph } from '../domain/flowGraph.js';
import type { NodeRun, NodeRunStatus, RunRecords } from '../domain/run/index.js';

const tracer = () => trace.getTracer('@ars/automations-engine');

const ENDED: ReadonlySet<NodeRunStatus> = new Set(['success', 'failed', 'cancelled', 'skipped']);

/**
 * Starts and ends the span of an automation run's trigger (`automation_run <automationId>`, in the
 * active context) and returns its W3C headers, kept on the run; undefined when tracing is off.
 */
export function automationRunTrace(input: { automationId: string; automationRunId: string; versionNumber: number }): Record<string, string> | undefined {
  const span = tracer().startSpan(`automation_run ${input.automationId}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'ars.automation.id': input.automationId,
      'ars.automation_run.id': input.automationRunId,
      'ars.automation.version': input.versionNumber,
    },
  });
  span.end();
  const headers = traceHeaders(trace.setSpan(context.active(), span));
  return headers.traceparent ? headers : undefined;
}

/**
 * One span per node run that ended in this transition (`automation_node <type>`), child of the run's
 * span, from the node's `startedAt` (else its end) to its `endedAt`. Attributes: ids, type, status —
 * never the node's input, output or error (they hold prompts and the agent's text).
 */
export function recordEndedNodeRuns(
  run: { automationId: string; automationRunId: string; trace: Record<string, string> | undefined },
  before: RunRecords,
  after: RunRecords,
  types: ReadonlyMap<string, FlowGraph['nodes'][number]['type']>,
): void {
  if (!run.trace?.traceparent) return;
  const parent = traceContext(run.trace);
  for (const nodeRun of Object.values(after.nodeRuns)) {
    if (!ENDED.has(nodeRun.status)) continue;
    const previous = before.nodeRuns[nodeRun.nodeId];
    if (previous && previous.status === nodeRun.status && previous.attempt === nodeRun.attempt) continue;
    nodeRunSpan(run, nodeRun, types.get(nodeRun.nodeId) ?? 'unknown', parent);
  }
}

function nodeRunSpan(run: { automationId: string; automationRunId: string }, nodeRun: NodeRun, type: string, parent: Context): void {
  const endedAt = nodeRun.endedAt ? Date.parse(nodeRun.endedAt) : Date.now();
  const startedAt = nodeRun.startedAt ? Date.parse(nodeRun.startedAt) : endedAt;
  const span = tracer().startSpan(
    `automation_node ${type}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: startedAt,
      attributes: {
        'ars.automation.id': run.automationId,
        'ars.automation_run.id': run.automationRunId,
        'ars.node.id': nodeRun.nodeId,
        'ars.node.type': type,
        'ars.node.status': nodeRun.status,
        'ars.node.attempt': nodeRun.attempt,
        ...(nodeRun.agentRunId ? { 'ars.run.id': nodeRun.agentRunId } : {}),
      },
    },
    parent,
  );
  if (nodeRun.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(endedAt);
}
