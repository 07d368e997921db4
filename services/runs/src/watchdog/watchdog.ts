import type { OutboxMessage, RunFinishedData } from '@ars/bus';
import type { Logger } from '@ars/logger';
import { overdueVerdict, type WatchdogSettings } from '../domain/overdueRuns.js';
import type { RunDoc } from '../store/collections.js';
import type { RunStore } from '../store/runs.js';

export interface WatchdogOptions {
  runs: RunStore;
  settings: WatchdogSettings;
  intervalMs: number;
  logger: Logger;
  /** Best effort: tells sandboxes to stop (or never start) a run the watchdog failed. */
  cancelInSandbox: (run: RunDoc) => Promise<unknown>;
  kickOutbox: () => void;
  /** Runs looked at per pass; default 100 (the next pass takes the rest). */
  batchSize?: number;
}

export interface Watchdog {
  /** One pass now; resolves with the number of runs it failed. */
  sweepOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The periodic sweep that keeps runs from hanging: every `intervalMs` it fails the runs
 * `overdueVerdict` finds overdue, each with a conditional write (a run that moved meanwhile is left
 * alone, so several instances may sweep at once), and publishes that run's `runs.finished` in the
 * same write so every follower of the run learns the end. A finish held too long for its events is
 * applied as its sandbox reported it (that `runs.finished` is on the topic already).
 */
export function startWatchdog(options: WatchdogOptions): Watchdog {
  const { runs, settings, logger } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<number> | undefined;

  const failOverdue = async (run: RunDoc, now: Date): Promise<boolean> => {
    const verdict = overdueVerdict(run, now, settings);
    if (!verdict) return false;
    if (verdict.kind === 'apply_held_finish') {
      const held = run.heldFinish;
      if (!held) return false;
      const ended = await runs.end(run._id, run.status, {
        status: held.status,
        error: held.error,
        failure: held.failure,
        finishedBy: 'sandbox',
        finishedEventCount: held.eventCount,
        usage: held.usage ?? null,
        allocation: run.sandboxRecordId === null ? (held.allocation ?? null) : null,
      });
      if (ended)
        logger.warn(
          { run_id: run._id, status: held.status, expected_events: held.eventCount, stored_events: run.nextSeq },
          'run finished without all its events (they did not arrive in time)',
        );
      return ended;
    }
    const finished: OutboxMessage<RunFinishedData> = {
      topic: 'runs.finished',
      key: run._id,
      type: 'run.finished',
      id: `${run._id}:finished`,
      data: { runId: run._id, status: 'failed', error: verdict.error, failure: verdict.failure, eventCount: run.nextSeq },
    };
    const ended = await runs.end(
      run._id,
      run.status,
      { status: 'failed', error: verdict.error, failure: verdict.failure, finishedBy: 'watchdog', finishedEventCount: null },
      [finished],
    );
    if (!ended) return false;
    logger.warn({ run_id: run._id, failure: verdict.failure, error: verdict.error }, 'run failed by the watchdog');
    options.cancelInSandbox(run).catch((error: unknown) => logger.warn({ run_id: run._id, err: error }, 'sandboxes could not be told to stop an overdue run'));
    return true;
  };

  const pass = async (): Promise<number> => {
    const now = new Date();
    const overdue = await runs.overdue(now, new Date(now.getTime() - settings.lostGraceMs), options.batchSize ?? 100);
    let failed = 0;
    for (const run of overdue) {
      if (stopped) break;
      if (await failOverdue(run, now)) failed += 1;
    }
    if (failed > 0) options.kickOutbox();
    return failed;
  };

  const sweepOnce = async (): Promise<number> => {
    while (current) await current.catch(() => undefined);
    const run = pass().finally(() => {
      current = undefined;
    });
    current = run;
    return run;
  };

  const loop = async (): Promise<void> => {
    if (stopped) return;
    try {
      await sweepOnce();
    } catch (error) {
      logger.warn({ err: error }, 'watchdog pass failed; will retry');
    }
    if (!stopped) timer = setTimeout(() => void loop(), options.intervalMs);
  };
  timer = setTimeout(() => void loop(), options.intervalMs);

  return {
    sweepOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      while (current) await current.catch(() => undefined);
    },
  };
}
