import { AGENT_MESSAGE_FULL_TEXT_CAP, type RunAgentEventData } from '@ars/bus';
import { sanitizePayload, sanitizeText, type KnownSecrets } from '@ars/sanitize';
import { isTerminal, nextStatus } from '../domain/runStatus.js';
import { runEventId } from '../domain/runView.js';
import type { RunDoc, RunEventDoc } from '../store/collections.js';
import type { ConsumerDeps } from './deps.js';
import { completeHeldFinishOf } from './runFinished.js';

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
 * `runs.agent-events`: each event is sanitized (CONTRACT.md, Events 4; the sandbox did it already,
 * this service's own secrets are redacted here too), then stored once per (runId, seq) — a
 * redelivered or re-sent event is refused by the unique index —, the first one moves `pending` to
 * `streaming`, and a finish held for the run's events is applied once they are all stored.
 * Several events at once (the consumer's batch, oldest first) cost one read, one write of the
 * events and one update per run. Every step is idempotent, so a handler cut short anywhere and
 * run again leaves the same result.
 */
export async function storeAgentEvents(deps: ConsumerDeps, events: RunAgentEventData[]): Promise<void> {
  const byRun = new Map<string, RunAgentEventData[]>();
  for (const event of events) byRun.set(event.runId, [...(byRun.get(event.runId) ?? []), event]);
  for (const [runId, ofRun] of byRun) await storeEventsOfRun(deps, runId, ofRun);
}

async function storeEventsOfRun(deps: ConsumerDeps, runId: string, events: RunAgentEventData[]): Promise<void> {
  const run = await deps.runs.findById(runId);
  if (!run) {
    for (const { seq } of events) deps.logger.warn({ run_id: runId, seq }, 'agent event of an unknown run: ignored');
    return;
  }
  const accepted = events.filter(({ seq }) => acceptsEvent(run, seq));
  for (const { seq } of events) {
    if (!acceptsEvent(run, seq)) deps.logger.info({ run_id: run._id, seq, status: run.status }, 'agent event of an ended run: ignored');
  }
  if (accepted.length === 0) return;
  const stored = await deps.events.insertMany(accepted.map((data) => eventDocument(run._id, data, deps.secrets)));
  const next = nextStatus(run.status, { kind: 'agent_event' });
  const recorded = await deps.runs.recordEvent(run._id, Math.max(...accepted.map(({ seq }) => seq)), next ? { from: run.status, next } : null);
  if (stored < accepted.length) deps.logger.debug({ run_id: run._id, events: accepted.length, stored }, 'agent events already stored');
  if (next) deps.logger.info({ run_id: run._id, status: next }, 'run status changed');
  // A finish read before these events may have been waiting for them (the run as read after they were stored).
  await completeHeldFinishOf(deps, recorded);
}

/** The event as stored: its texts and payload sanitized, `createdAt` the moment the sandbox took it from the harness. */
function eventDocument(runId: string, data: RunAgentEventData, secrets: KnownSecrets): RunEventDoc {
  const emitted = new Date(data.emittedAt);
  const known = { knownSecrets: secrets };
  return {
    _id: runEventId(runId, data.seq),
    runId,
    seq: data.seq,
    type: data.eventType ? sanitizeText(data.eventType, known) : 'unknown',
    toolName: nullableText(data.toolName, known),
    message: nullableText(data.message, known),
    ...(typeof data.fullText === 'string' ? { fullText: sanitizeText(data.fullText, { ...known, cap: AGENT_MESSAGE_FULL_TEXT_CAP }) } : {}),
    payload: sanitizePayload(data.payload, known),
    createdAt: Number.isNaN(emitted.getTime()) ? new Date() : emitted,
    storedAt: new Date(),
  };
}

function nullableText(text: string | null | undefined, options: { knownSecrets: KnownSecrets }): string | null {
  return text === null || text === undefined ? null : sanitizeText(text, options);
}
