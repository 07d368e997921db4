// runs.finished: an agent run an automation node started has ended; its node continues or fails.
import { groupTimings, TransientError, type Bus, type BusConsumer, type BusMessage, type ProcessedMessageStore, type RunFinishedData } from '@ars/bus';
import type { RunsClient } from '@ars/runs/client';
import type { RunDriver } from '../engine/runDriver.js';
import type { AutomationRunStore } from '../store/automationRuns.js';

export interface AgentRunFinishedDeps {
  runs: AutomationRunStore;
  runsApi: Pick<RunsClient, 'getRun'>;
  driver: RunDriver;
}

/**
 * Finds the automation run whose node started the agent run (most finished runs are not an
 * automation's: skipped), reads the run from the runs service (its last message, model and usage),
 * and applies the finish. Runs holds a finish until the run's events are stored; until it has applied
 * it, the message is retried (TransientError), so the last message is the real last one.
 */
export async function handleAgentRunFinished(deps: AgentRunFinishedDeps, message: BusMessage): Promise<void> {
  const { runId } = message.data as RunFinishedData;
  const run = await deps.runs.findByAgentRun(runId);
  if (!run) return;
  const agentRun = await deps.runsApi.getRun(run.userId, runId);
  if (agentRun.status === 'pending' || agentRun.status === 'streaming')
    throw new TransientError(`the runs service has not applied the finish of run ${runId} yet`);
  await deps.driver.agentRunFinished(run, agentRun);
}

export function startAgentRunFinishedConsumer(
  bus: Bus,
  deps: AgentRunFinishedDeps,
  options: { groupId: string; processed: ProcessedMessageStore; sessionTimeoutMs: number },
): Promise<BusConsumer> {
  return bus.consume({
    groupId: options.groupId,
    session: groupTimings(options.sessionTimeoutMs),
    topics: ['runs.finished'],
    processed: options.processed,
    handle: (message) => handleAgentRunFinished(deps, message),
  });
}
