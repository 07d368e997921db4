// The engine's two loops: timers that come due fire, and live runs nothing changed for a while are
// looked at again (the sweeper: what a crash left half done is done; nothing waits forever).
import type { Logger } from '@ars/logger';
import { startPeriodicPass, type PeriodicPass } from '@ars/service';
import type { AutomationEventStore } from '../store/automationEvents.js';
import type { AutomationRunStore } from '../store/automationRuns.js';
import type { TimerStore } from '../store/timers.js';
import type { RunDriver } from './runDriver.js';

/** How many timers or runs one pass takes on (the next pass takes the rest). */
const BATCH = 100;

export interface LoopDeps {
  driver: RunDriver;
  runs: AutomationRunStore;
  timers: TimerStore;
  events: AutomationEventStore;
  logger: Logger;
  timerPollMs: number;
  sweepIntervalMs: number;
  checkAfterMs: number;
}

/** Fires every due timer: `timerFired` on its run, then the timer goes (a crash between them fires it again, which changes nothing). */
async function fireDueTimers(deps: LoopDeps): Promise<void> {
  for (const timer of await deps.timers.due(new Date(), BATCH)) {
    await deps.driver.apply(timer.automationRunId, {
      type: 'timerFired',
      nodeId: timer.nodeId,
      attempt: timer.attempt,
      kind: timer.kind,
      at: new Date().toISOString(),
    });
    await deps.timers.clear(timer._id);
  }
}

async function sweep(deps: LoopDeps): Promise<void> {
  const now = new Date();
  for (const runId of await deps.runs.dueForCheck(now, BATCH)) {
    try {
      await deps.driver.check(runId);
    } catch (error) {
      deps.logger.warn({ automation_run_id: runId, err: error }, 'an automation run could not be checked; the next sweep tries again');
    }
    await deps.runs.postponeCheck(runId, new Date(Date.now() + deps.checkAfterMs));
  }
  // Events whose delivery a crash interrupted (each delivery is idempotent by the event's id).
  for (const event of await deps.events.pendingBefore(new Date(now.getTime() - deps.checkAfterMs), BATCH)) await deps.driver.deliverEvent(event);
}

export function startEngineLoops(deps: LoopDeps): { stop(): Promise<void> } {
  const onError = (loop: string) => (error: unknown) => deps.logger.warn({ err: error, loop }, 'an automations engine loop failed; it runs again');
  const loops: PeriodicPass[] = [
    startPeriodicPass(() => fireDueTimers(deps), deps.timerPollMs, onError('timers')),
    startPeriodicPass(() => sweep(deps), deps.sweepIntervalMs, onError('sweeper')),
  ];
  return { stop: () => Promise.all(loops.map((loop) => loop.stop())).then(() => undefined) };
}
