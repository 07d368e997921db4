// The `limits` lifecycle event: what a sandbox's processes are held to, written once it is made, so
// its logs say which limits were in force (and which this machine could not enforce).
import type { AllocatedSandbox, SandboxProvider } from '../providers/provider.js';
import type { LifecycleEntry, SandboxRecordStore } from '../store/sandboxRecords.js';

export async function recordLimitsInForce(
  sandboxes: SandboxRecordStore,
  provider: SandboxProvider,
  sandboxRecordId: string,
  allocated: AllocatedSandbox,
  run: { runId: string; timeLimitMs: number } | null,
): Promise<void> {
  const entry = limitsEntry(provider, allocated, run);
  if (entry) await sandboxes.event(sandboxRecordId, entry);
}

/** The `limits` event of a sandbox just made, recorded on its own or with the change that follows (a run's `ready`); null when it is not limited. */
export function limitsEntry(provider: SandboxProvider, allocated: AllocatedSandbox, run: { runId: string; timeLimitMs: number } | null): LifecycleEntry | null {
  const limits = provider.limitsOf?.({ sandboxId: allocated.sandboxId, dir: allocated.dir });
  if (!limits) return null;
  return {
    eventType: 'limits',
    decisionCode: limits.not_enforced.length > 0 ? 'not_enforced' : 'enforced',
    ...(run ? { runId: run.runId } : {}),
    payload: { ...limits, time_limit_ms: run?.timeLimitMs ?? null },
  };
}
