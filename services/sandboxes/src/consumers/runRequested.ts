import { mongoProcessedStore, type Bus, type BusConsumer, type RunRequestedData } from '@ars/bus';
import type { Db } from '@ars/mongo';
import type { SessionDeps } from '../sessions/deps.js';
import { startRunSession } from '../sessions/startRunSession.js';

export const CONSUMER_GROUP = 'sandboxes';

/**
 * Consumer group `sandboxes` on `runs.requested`: each request becomes a run session (see startRunSession:
 * idempotent per run, so a redelivery starts nothing). The handler returns once the run has
 * started or joined this instance's queue, so runs proceed in parallel and offsets are committed.
 * It never waits for capacity: a partition held for a queued run's whole wait would hold every
 * other run keyed to it (and their cancelled-before-arrival ends) behind a run of another user, and
 * a member busy that long drops out of its group. The queue is durable instead (`queued` session
 * documents), so a committed request is never lost with the process.
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
      await startRunSession(deps, message.data as RunRequestedData);
    },
  });
}
