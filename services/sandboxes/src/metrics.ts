// The sandboxes service's own metric (beside the kit's HTTP and bus ones): the sandboxes holding
// compute now, read from the store at scrape time. Labels: provider and state, both closed sets.
import type { Logger } from '@ars/logger';
import { gauge, sampledEvery } from '@ars/metrics';
import type { ProviderName } from './providers/provider.js';
import type { SandboxRecordStore } from './store/sandboxRecords.js';

interface LiveReport {
  provider: ProviderName;
  read: () => Promise<Awaited<ReturnType<SandboxRecordStore['liveCounts']>> | undefined>;
}

/** The service started last in this process (one per process; tests may start it again in-process). */
let current: LiveReport | undefined;

/**
 * `ars_sandboxes_live{provider,state}`: records in a live status (`provisioning`, `ready`), counted
 * in MongoDB at most every 15 s at scrape time. Every instance reports the same cluster-wide count
 * (the records are the truth, not an instance's memory): aggregate with `max`, never `sum`.
 */
export function reportLiveSandboxes(store: Pick<SandboxRecordStore, 'liveCounts'>, provider: ProviderName, logger: Logger): void {
  current = {
    provider,
    read: sampledEvery(() => store.liveCounts(), {
      minIntervalMs: 15_000,
      onError: (error) => logger.warn({ err: error }, 'live sandboxes not counted (the last count stays)'),
    }),
  };
  gauge({
    name: 'ars_sandboxes_live',
    help: 'Sandboxes holding compute now (provisioning or ready), by provider and state; cluster-wide, the same on every instance (use max).',
    labelNames: ['provider', 'state'],
    collect: async (live) => {
      const report = current;
      const counts = await report?.read();
      if (!report || !counts) return;
      live.reset();
      // Both states of this instance's provider always present (0 when none): a panel shows a line, not "no data".
      for (const state of ['provisioning', 'ready'] as const) live.set({ provider: report.provider, state }, 0);
      for (const { provider, status, count } of counts) live.set({ provider, state: status }, count);
    },
  });
}
