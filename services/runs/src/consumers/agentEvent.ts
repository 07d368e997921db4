import { AGENT_MESSAGE_FULL_TEXT_CAP, type RunAgentEventData } from '@ars/bus';
import { sanitizePayload, sanitizeText, type KnownSecrets } from '@ars/sanitize';
import { isTerminal, nextStatus } from '../domain/runStatus.js';
import { runEventId } from '../domain/runView.js';
import type { RunDoc } from '../store/collections.js';
import type { ConsumerDeps } from './deps.js';
import { completeHeldFinish } from './runFinished.js';

/**
 * Whether an event belongs in the run's history: every event of a live run; of a terminal run only
 * those its sandbox reported before the end (`seq` below the `eventCount` of its `runs.finished`:
 * the finish was read first because topics are consumed independently). Events of a run the
 * watchdog ended, or after the end, change nothing.
 */
export function acceptsEvent(run: Pick<RunDoc, 'status' | 'finishedBy' | 'finishedEventCount'>, seq: number): boolean {
  if (!isTerminal(run.status)) return true;
  return run.finishedBy === 'sandbox' && run.finishedEventCount !== null && seq < run.finishedEventCount;
}

/**
 * `runs.agent-events`: the event is sanitized (CONTRACT.md, Events 4; the sandbox did it already, this
 * service's own secrets are redacted here too), then stored once per (runId, seq) — a redelivered or
 * re-sent event is refused by the unique index —, the first one moves `pending` to `streaming`, and
 * a finish held for the run's events is applied once they are all stored.
 * Every step is idempotent, so a handler cut short anywhere and run again leaves the same result.
 */
export async function storeAgentEvent(deps: ConsumerDeps, data: RunAgentEventData): Promise<void> {
  const run = await deps.runs.findById(data.runId);
  if (!run) {
    deps.logger.warn({ run_id: data.runId, seq: data.seq }, 'agent event of an unknown run: ignored');
    return;
  }
  if (!acceptsEvent(run, data.seq)) {
    deps.logger.info({ run_id: run._id, seq: data.seq, status: run.status }, 'agent event of an ended run: ignored');
    return;
  }
  const emitted = new Date(data.emittedAt);
  const known = { knownSecrets: deps.secrets };
  const stored = await deps.events.insert({
    _id: runEventId(run._id, data.seq),
    runId: run._id,
    seq: data.seq,
    type: data.eventType ? sanitizeText(data.eventType, known) : 'unknown',
    toolName: nullableText(data.toolName, known),
    message: nullableText(data.message, known),
    ...(typeof data.fullText === 'string' ? { fullText: sanitizeText(data.fullText, { ...known, cap: AGENT_MESSAGE_FULL_TEXT_CAP }) } : {}),
    payload: sanitizePayload(data.payload, known),
    createdAt: Number.isNaN(emitted.getTime()) ? new Date() : emitted,
    storedAt: new Date(),
  });
  const next = nextStatus(run.status, { kind: 'agent_event' });
  await deps.runs.recordEvent(run._id, data.seq, next ? { from: run.status, next } : null);
  if (!stored) deps.logger.debug({ run_id: run._id, seq: data.seq }, 'agent event already stored');
  if (next) deps.logger.info({ run_id: run._id, status: next }, 'run status changed');
  // A finish read before this event may have been waiting for it.
  await completeHeldFinish(deps, run._id);
}

function nullableText(text: string | null | undefined, options: { knownSecrets: KnownSecrets }): string | null {
  return text === null || text === undefined ? null : sanitizeText(text, options);
}
