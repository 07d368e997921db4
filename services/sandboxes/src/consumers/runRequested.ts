import { mongoProcessedStore, type Bus, type BusConsumer, type RunRequestedData } from '@ars/bus';
import type { Db } from '@ars/mongo';
import type { SessionDeps } from '../sessions/deps.js';
import { startRun } from '../sessions/startRun.js';

export const CONSUMER_GROUP = 'sandboxes';

/**
 * Consumer group `sandboxes` on `runs.requested`: each request becomes a session (see startRun:
 * idempotent per run, so a redelivery starts nothing). The handler returns once the session has
 * started, so runs proceed in parallel and offsets are committed.
 */
export async function consumeRunRequested(
  bus: Bus,
  db: Db,
  deps: SessionDeps,
  options: { session?: { sessionTimeoutMs?: number; rebalanceTimeoutMs?: number; heartbeatIntervalMs?: number } } = {},
): Promise<BusConsumer> {
  const processed = mongoProcessedStore(db);
  await processed.ensureIndexes();
  return bus.consume({
    groupId: CONSUMER_GROUP,
    topics: ['runs.requested'],
    processed,
    ...(options.session ? { session: options.session } : {}),
    handle: async (message) => {
      await startRun(deps, message.data as RunRequestedData);
    },
  });
}
