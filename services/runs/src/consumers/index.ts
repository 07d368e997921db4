import {
  groupTimings,
  type BatchItem,
  type Bus,
  type BusConsumer,
  type BusMessage,
  type MessageContext,
  type ProcessedMessageStore,
  type RunAgentEventData,
  type RunFinishedData,
  type RunSandboxAllocatedData,
  type RunSandboxQueuedData,
} from '@ars/bus';
import { storeAgentEvents } from './agentEvent.js';
import type { ConsumerDeps } from './deps.js';
import { applyRunFinished } from './runFinished.js';
import { applySandboxAllocated } from './sandboxAllocated.js';
import { applySandboxQueued } from './sandboxQueued.js';

export const CONSUMED_TOPICS = ['runs.sandbox-allocated', 'runs.sandbox-queued', 'runs.agent-events', 'runs.finished'] as const;

/** One handler for the four topics sandboxes reports a run on (data already validated by the bus). */
export async function handleRunMessage(deps: ConsumerDeps, message: BusMessage, context: Pick<MessageContext, 'topic'>): Promise<void> {
  switch (context.topic) {
    case 'runs.sandbox-allocated':
      return applySandboxAllocated(deps, message.data as RunSandboxAllocatedData);
    case 'runs.sandbox-queued':
      return applySandboxQueued(deps, message.data as RunSandboxQueuedData);
    case 'runs.agent-events':
      return storeAgentEvents(deps, [message.data as RunAgentEventData]);
    case 'runs.finished':
      return applyRunFinished(deps, message.data as RunFinishedData);
    default:
      deps.logger.warn({ topic: context.topic }, 'message of an unexpected topic: ignored');
  }
}

/**
 * Several messages of one topic's partition at once, oldest first: the events of each run in one
 * write (`storeAgentEvents`), any other topic's messages one after another.
 */
export async function handleRunMessages(deps: ConsumerDeps, items: BatchItem[]): Promise<void> {
  const topic = items[0]?.context.topic;
  if (topic === 'runs.agent-events')
    return storeAgentEvents(
      deps,
      items.map(({ message }) => message.data as RunAgentEventData),
    );
  for (const { message, context } of items) await handleRunMessage(deps, message, context);
}

/**
 * Joins the consumer group and handles messages until stopped: per-run order within each topic,
 * message ids recorded in `processed` (a redelivery is skipped; agent events need no record, see
 * below), the handlers idempotent for the window between their effect and that record; what one
 * fetch brought, handled together. Each handled message's run is announced as changed, once per batch.
 */
export async function startRunConsumers(
  bus: Bus,
  deps: ConsumerDeps,
  options: { groupId: string; processed: ProcessedMessageStore; sessionTimeoutMs: number },
): Promise<BusConsumer> {
  // After the change is stored: a stream woken by it reads it.
  const announce = (messages: BusMessage[]) => {
    const runs = new Set(messages.map((message) => (message.data as { runId?: unknown }).runId));
    for (const runId of runs) if (typeof runId === 'string') deps.signals.changed(runId);
  };
  return bus.consume({
    groupId: options.groupId,
    session: groupTimings(options.sessionTimeoutMs),
    topics: [...CONSUMED_TOPICS],
    processed: options.processed,
    // An event is stored once per (runId, seq) by a unique index, and the rest of its handling changes nothing twice (storeAgentEvents).
    idempotentTopics: ['runs.agent-events'],
    handle: async (message, context) => {
      await handleRunMessage(deps, message, context);
      announce([message]);
    },
    handleBatch: async (items) => {
      await handleRunMessages(deps, items);
      announce(items.map(({ message }) => message));
    },
  });
}
