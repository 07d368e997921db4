import type { RunSandboxAllocatedData } from '@ars/bus';
import type { ConsumerDeps } from './deps.js';

/**
 * `runs.sandbox-allocated`: the run's `sandboxRecordId`, `sandboxId` and `runtime` are set, once,
 * while the run is live. A redelivery, or an allocation read after the run ended (the watchdog
 * failed it, or its finish was read first), changes nothing.
 */
export async function applySandboxAllocated(deps: ConsumerDeps, data: RunSandboxAllocatedData): Promise<void> {
  const changed = await deps.runs.setAllocation(data.runId, {
    sandboxRecordId: data.sandboxRecordId,
    sandboxId: data.sandboxId,
    runtime: { provider: data.runtime.provider, runId: data.runtime.runId },
  });
  if (changed) deps.logger.info({ run_id: data.runId, sandbox_record_id: data.sandboxRecordId }, 'run sandbox allocated');
  else deps.logger.debug({ run_id: data.runId }, 'sandbox allocation changed nothing (unknown, already set or ended)');
}
