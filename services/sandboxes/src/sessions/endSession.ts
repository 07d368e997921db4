import { sanitizeText, type KnownSecrets } from '@ars/sanitize';
import type { SandboxRef } from '../providers/provider.js';
import type { SessionResult } from '../store/collections.js';
import type { SessionDeps } from './deps.js';
import { keepWorkspaceSandbox, type KeptWorkspace } from './workspaceSandbox.js';

/**
 * The one way a live session of this instance ends: the session document becomes `finished` with
 * its `run.finished` in the outbox (published by the relay, after every event of the run was
 * published; its error sanitized like an event's string, as it leaves through Kafka), the sandbox record follows (`stopped`, or `failed` with the error), and the sandbox's
 * working directory is removed — except a workspace session's sandbox, which stays for the session's next run.
 */
export async function endSession(
  deps: SessionDeps,
  input: { runId: string; sandboxRecordId: string; sandbox: SandboxRef; result: SessionResult; secrets?: KnownSecrets; workspace?: KeptWorkspace },
): Promise<void> {
  const { runId, sandboxRecordId, sandbox } = input;
  const result = withSanitizedError(input.result, input.secrets ?? deps.settings.secrets);
  const log = deps.logger.child({ run_id: runId });
  const written = await deps.runSessions.finish(runId, deps.instanceId, result);
  if (written) deps.kickRelay();
  else log.warn('session was no longer live here (already ended or swept): its result is not reported twice');
  if (input.workspace && (await keptForWorkspace(deps, input.runId, sandboxRecordId, result, input.workspace))) {
    log.info({ status: result.status, failure: result.failure, event_count: result.eventCount }, 'session ended: its workspace sandbox stays');
    return;
  }
  await deps.sandboxRecords
    .transition(sandboxRecordId, result.status === 'failed' ? { status: 'failed', error: result.error } : { status: 'stopped' }, {
      eventType: result.status === 'failed' ? 'failed' : 'stopped',
      decisionCode: result.failure ?? result.status,
      payload: { eventCount: result.eventCount },
    })
    .catch((error: unknown) => log.error({ err: error }, 'sandbox record could not be updated'));
  await deps.provider.release(sandbox).catch((error: unknown) => log.error({ err: error }, 'sandbox could not be released'));
  log.info({ status: result.status, failure: result.failure, event_count: result.eventCount }, 'session ended');
}

async function keptForWorkspace(deps: SessionDeps, runId: string, sandboxRecordId: string, result: SessionResult, workspace: KeptWorkspace): Promise<boolean> {
  try {
    return await keepWorkspaceSandbox(deps, { runId, sandboxRecordId, result, ...workspace });
  } catch (error) {
    deps.logger.error({ err: error, run_id: runId }, 'workspace sandbox could not be kept: it ends with its run');
    return false;
  }
}

/** The most characters of an error sent in `run.finished` (runs keeps as many). */
const ERROR_CAP = 2_000;

function withSanitizedError(result: SessionResult, secrets: KnownSecrets): SessionResult {
  if (result.error === null || result.error === undefined) return result;
  return { ...result, error: sanitizeText(result.error, { cap: ERROR_CAP, knownSecrets: secrets }) };
}
