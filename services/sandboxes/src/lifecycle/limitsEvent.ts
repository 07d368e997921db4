// The `limits` lifecycle event: what a sandbox's processes are held to, written once it is made, so
// its logs say which limits were in force (and which this machine could not enforce).
import type { AllocatedSandbox, SandboxProvider } from '../providers/provider.js';
import type { SandboxRecordStore } from '../store/sandboxRecords.js';

export async function recordLimitsInForce(
  sandboxes: SandboxRecordStore,
  provider: SandboxProvider,
  sandboxRecordId: string,
  allocated: AllocatedSandbox,
  run: { runId: string; timeLimitMs: number } | null,
): Promise<void> {
  const limits = provider.limitsOf?.({ sandboxId: allocated.sandboxId, dir: allocated.dir });
  if (!limits) return;
  await sandboxes.event(sandboxRecordId, {
    eventType: 'limits',
    decisionCode: limits.not_enforced.length > 0 ? 'not_enforced' : 'enforced',
    ...(run ? { runId: run.runId } : {}),
    payload: { ...limits, time_limit_ms: run?.timeLimitMs ?? null },
  });
}
