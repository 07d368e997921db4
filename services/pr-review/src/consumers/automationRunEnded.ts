// automations.dispatch: an automation run's status changed; when a review attempt's run has ended,
// its report becomes due (made by the report loop, which retries it through host failures).
import type { Bus, BusConsumer, BusMessage, ProcessedMessageStore } from '@ars/bus';
import type { AttemptStore } from '../store/attempts.js';

const ENDED = new Set(['run.success', 'run.failed', 'run.cancelled']);

interface DispatchData {
  automationRunId: string;
  type?: string;
  message?: string;
}

export interface AutomationRunEndedDeps {
  attempts: AttemptStore;
  kickReports: () => void;
}

/** Most dispatch events are not an ending, and most runs are not a review: both skipped. Idempotent (the first ending counts). */
export async function handleAutomationRunEnded(deps: AutomationRunEndedDeps, message: BusMessage): Promise<void> {
  const data = message.data as DispatchData;
  if (!data.type || !ENDED.has(data.type)) return;
  const attempt = await deps.attempts.findByAutomationRun(data.automationRunId);
  if (!attempt || attempt.runEnded) return;
  const status = data.type.slice('run.'.length) as 'success' | 'failed' | 'cancelled';
  const error = status === 'success' ? null : (data.message ?? null);
  await deps.attempts.update(attempt._id, { runEnded: { status, error }, reportDueAt: new Date(), reportTries: 0 });
  deps.kickReports();
}

export function startAutomationRunEndedConsumer(
  bus: Bus,
  deps: AutomationRunEndedDeps,
  options: { groupId: string; processed: ProcessedMessageStore },
): Promise<BusConsumer> {
  return bus.consume({
    groupId: options.groupId,
    topics: ['automations.dispatch'],
    processed: options.processed,
    handle: (message) => handleAutomationRunEnded(deps, message),
  });
}
