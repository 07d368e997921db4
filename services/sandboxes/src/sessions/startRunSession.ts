// `run.requested` → a queued run, then a sandbox and a running session (or a defined end: cancelled,
// too late, not allocatable).
import { limitsEntry } from '../lifecycle/limitsEvent.js';
import { context } from '@opentelemetry/api';
import { traceContext, traceHeaders, type RunRequestedData } from '@ars/bus';
import { isAppError } from '@ars/errors';
import { urlPassword } from '@ars/sanitize';
import { cancelled, failed, type AbortReason } from '../domain/outcome.js';
import { runtimeProvider } from '../domain/runtimeProvider.js';
import { repoWaitingOutCatalogOutage } from '../lifecycle/catalogRepo.js';
import { AllocationError, type AllocatedSandbox } from '../providers/provider.js';
import type { QueuedRequest, SessionDoc, SessionResult } from '../store/collections.js';
import { newSandboxRecordId, runSandbox } from '../store/sandboxRecords.js';
import type { SessionDeps } from './deps.js';
import { endSession } from './endSession.js';
import type { LiveSession } from './liveSessions.js';
import { PublishError, publishWithRetry } from './publish.js';
import type { Admission, QueuedRun, RepoLookup } from './runQueue.js';
import { runSession } from './runSession.js';
import { keepWorkspaceSandbox, takeWorkspaceSandbox, workspaceOf, type WorkspaceTake } from './workspaceSandbox.js';

/** The start window when a request carries no `startBy` (runs always sends one). */
const DEFAULT_START_WINDOW_MS = 120_000;

/**
 * Idempotent per run: the session document (`_id` = runId) is claimed once, `queued` in this
 * instance's queue; a redelivered request, or one for a run cancelled before it arrived, starts
 * nothing. The run starts at once when a slot is free and its user has room; otherwise runs is
 * told it waits (a `queued` notice, renewed until it leaves the queue). Resolves once the run was
 * started or queued; the session then runs on its own.
 */
export async function startRunSession(deps: SessionDeps, request: RunRequestedData, now: Date = new Date()): Promise<void> {
  const { runId, userId } = request;
  const log = deps.logger.child({ run_id: runId });

  // A run already known here (a redelivery, a cancel placed first) is found by the insert below: it answers the document there.
  if (request.startBy !== undefined && Number.isFinite(Date.parse(request.startBy)) && now.getTime() > Date.parse(request.startBy)) {
    const result = failed('sandbox_allocation', `the run was not started: its start deadline (${request.startBy}) had passed when the request arrived`, 0);
    const inserted = await deps.runSessions.insertFinished(runId, userId, result);
    if (inserted !== true) return alreadyThere(deps, inserted, request);
    log.warn({ start_by: request.startBy }, 'run request arrived after its start deadline: not started');
    deps.kickRelay();
    return;
  }

  // The run's trace (this consumer span's), kept so the run starts in it whenever and wherever it leaves the queue.
  const headers = traceHeaders();
  const trace = headers.traceparent ? { trace: headers } : {};
  const queued = await deps.runSessions.enqueue(runId, userId, deps.instanceId, { ...queuedRequest(request, now), ...trace });
  if (queued !== true) return alreadyThere(deps, queued, request);
  // The clone URL is asked for while the run is admitted, not after: most runs start at once.
  const repo = lookUpRepo(deps, request);
  deps.queue.add({ runId, userId, request, queuedAt: now, reason: 'instance_full', ...trace, arriving: { repo } });
  await pumpQueue(deps);
  const waiting = deps.queue.get(runId);
  // Still waiting: its later admission asks the catalog then (a clone URL may carry a token that expires).
  if (waiting?.arriving) {
    waiting.arriving.repo.abort();
    delete waiting.arriving;
  }
  if (waiting && (await deps.runSessions.notice(runId, deps.instanceId, waiting.reason))) {
    log.info({ reason: waiting.reason, queued: deps.queue.size, live: deps.live.size }, 'run queued: it starts when a session slot and its user’s room allow');
    deps.kickRelay();
  }
}

/**
 * What a queued session keeps: the request, and the notice schedule. Runs gave the request a start
 * window (its `startBy`); a notice restarts that window in runs, so notices are renewed every third
 * of it and a queued run is never failed for waiting.
 */
function queuedRequest(request: RunRequestedData, now: Date): QueuedRequest {
  const startBy = request.startBy !== undefined ? Date.parse(request.startBy) : Number.NaN;
  const window = Number.isFinite(startBy) ? Math.max(1_000, startBy - now.getTime()) : DEFAULT_START_WINDOW_MS;
  const renewEveryMs = Math.max(250, Math.floor(window / 3));
  return {
    request,
    queuedAt: now,
    reason: 'instance_full',
    notices: 0,
    // The first notice is startRunSession's, once the queue's pass has said why the run waits; a renewal due
    // at once could race it and announce the placeholder reason.
    renewAt: new Date(now.getTime() + renewEveryMs),
    holdUntil: new Date(now.getTime() + window),
    renewEveryMs,
  };
}

/** Starts queued runs while this instance has a free session slot (see RunQueue.pump). */
export function pumpQueue(deps: SessionDeps): Promise<void> {
  return deps.queue.pump(
    () => deps.live.size < deps.settings.maxSessions,
    (run) => admit(deps, run),
  );
}

/**
 * Takes a queued run out of the queue: its sandbox record first (one of its user's live slots:
 * none free → it keeps waiting), then the session `allocating`; then the allocation goes on in the
 * background and the pump moves to the next run.
 */
async function admit(deps: SessionDeps, run: QueuedRun): Promise<Admission> {
  const { runId, userId, request, arriving } = run;
  delete run.arriving;
  const log = deps.logger.child({ run_id: runId });
  let sandbox: WorkspaceTake | null = null;
  let started = false;
  try {
    // A run that waited may have been cancelled or adopted meanwhile: looked at before a sandbox is taken for it.
    if (!arriving) {
      const current = await deps.runSessions.get(runId);
      if (current?.state !== 'queued' || current.instanceId !== deps.instanceId) return 'gone';
    }
    sandbox = await sandboxForRun(deps, request);
    if (sandbox.kind === 'user_full') return 'user_full';
    if (sandbox.kind === 'held') return 'held';
    const admitted = await deps.runSessions.admit(runId, deps.instanceId, sandbox.recordId);
    if (!admitted) {
      // Cancelled between the look (or the arrival) and the write: the record made for it ends at once (a kept workspace sandbox stays).
      await unused(deps, run, sandbox, 'stopped');
      return 'gone';
    }
    if ((admitted.queue?.notices ?? 0) > 0) {
      log.info({ waited_ms: Date.now() - run.queuedAt.getTime() }, 'queued run leaves the queue: allocating');
      deps.kickRelay();
    }
    const { session: live, end } = deps.live.add(runId, userId, sandbox.recordId);
    // In the run's own trace, whichever run's pass (or timer) pumped the queue.
    const taken = sandbox;
    const repo = arriving?.repo ?? null;
    started = true;
    void context.with(traceContext(run.trace), () => allocateAndRun(deps, request, admitted.sessionId, taken, live, end, repo));
    return 'started';
  } catch (error) {
    log.warn({ err: error }, 'queued run could not be started now: retried at the next pass');
    if (sandbox && (sandbox.kind === 'new' || sandbox.kind === 'kept')) await unused(deps, run, sandbox, 'failed').catch(() => undefined);
    return 'retry_later';
  } finally {
    if (!started) arriving?.repo.abort();
  }
}

/**
 * The run's repository from the catalog (its clone URL), waiting out a brief catalog outage until
 * abort(); a failure is read where the URL is needed (allocateAndRun).
 */
function lookUpRepo(deps: SessionDeps, request: RunRequestedData): RepoLookup {
  const controller = new AbortController();
  const repo = repoWaitingOutCatalogOutage(deps.catalog, request.userId, request.repoId, controller.signal);
  // Not a rejection left unhandled when nobody reads it (the run did not start at once).
  repo.catch(() => undefined);
  return { repo, abort: () => controller.abort() };
}

/** A sandbox taken for a run that does not start after all: a new record ends; a kept workspace sandbox is kept again. */
async function unused(deps: SessionDeps, run: QueuedRun, sandbox: Extract<WorkspaceTake, { kind: 'kept' | 'new' }>, end: 'stopped' | 'failed'): Promise<void> {
  if (sandbox.kind === 'kept') {
    const result = end === 'stopped' ? cancelled(0) : failed('sandbox_allocation', 'the run could not leave the queue', 0);
    const { runId, userId } = run;
    await keepWorkspaceSandbox(deps, { runId, userId, sandboxRecordId: sandbox.recordId, allocated: sandbox.allocated, result, shuttingDown: false });
    return;
  }
  if (end === 'stopped') {
    await deps.sandboxRecords.transition(
      sandbox.recordId,
      { status: 'stopped' },
      { eventType: 'stopped', decisionCode: 'cancelled', payload: { eventCount: 0 } },
    );
  } else {
    await deps.sandboxRecords.transition(
      sandbox.recordId,
      { status: 'failed', error: 'the run could not leave the queue' },
      { eventType: 'failed', decisionCode: 'sandbox_allocation' },
      ['provisioning'],
    );
  }
}

/** The sandbox a run leaves the queue with: a new record of its own, or its workspace session's (workspaceSandbox.ts). */
async function sandboxForRun(deps: SessionDeps, request: RunRequestedData): Promise<WorkspaceTake> {
  if (request.workspaceSessionId) return takeWorkspaceSandbox(deps, request, request.workspaceSessionId);
  const record = await deps.sandboxRecords.create(newSandboxRecordId(), runSandbox(request, deps.provider.name));
  if (record.kind === 'user_full') return { kind: 'user_full' };
  if (record.kind !== 'created') throw new Error('a run sandbox has no reuse key');
  return { kind: 'new', recordId: record.doc._id, restoreFrom: null };
}

/** From `allocating`: the repository's clone URL, the provider's sandbox, `run.sandbox-allocated`, then the harness session. */
async function allocateAndRun(
  deps: SessionDeps,
  request: RunRequestedData,
  sessionId: string,
  taken: Extract<WorkspaceTake, { kind: 'kept' | 'new' }>,
  live: LiveSession,
  end: () => void,
  lookedUp: RepoLookup | null,
): Promise<void> {
  const { runId } = request;
  const sandboxRecordId = taken.recordId;
  const log = deps.logger.child({ run_id: runId });
  const signal = live.controller.signal;
  let allocated: AllocatedSandbox | null = taken.kind === 'kept' ? taken.allocated : null;
  const stop = async (result: SessionResult): Promise<void> => {
    await endSession(deps, {
      runId,
      sandboxRecordId,
      sandbox: { sandboxId: allocated?.sandboxId ?? null, dir: allocated?.dir ?? null },
      result,
      workspace: workspaceOf(request, allocated, live.reason),
    });
    end();
  };
  const abortedResult = (): SessionResult => abortResult(live.reason, 0);

  try {
    let cloneUrl: string;
    const lookup = lookedUp ?? lookUpRepo(deps, request);
    // Stopping the session stops waiting for the catalog.
    if (signal.aborted) lookup.abort();
    else signal.addEventListener('abort', () => lookup.abort(), { once: true });
    try {
      cloneUrl = (await lookup.repo).clone_url;
      live.secrets.push(...urlPassword(cloneUrl));
    } catch (error) {
      if (signal.aborted) return await stop(abortedResult());
      const message =
        isAppError(error) && error.code === 'NOT_FOUND'
          ? 'the repository was not found for this user'
          : `the repository's clone URL could not be obtained from the catalog: ${error instanceof Error ? error.message : String(error)}`;
      return await stop(failed('sandbox_allocation', message, 0));
    }

    try {
      allocated ??= await deps.provider.allocate({
        sandboxRecordId,
        runId,
        cloneUrl,
        baseBranch: request.branch.base,
        workingBranch: request.branch.working,
        rootDirectory: request.rootDirectory ?? null,
        ...(taken.kind === 'new' && taken.restoreFrom !== null ? { restoreFrom: taken.restoreFrom } : {}),
        signal,
      });
    } catch (error) {
      if (signal.aborted) return await stop(abortedResult());
      if (error instanceof AllocationError) return await stop(failed('sandbox_allocation', error.message, 0));
      throw error;
    }
    const runtime = { provider: runtimeProviderOf(deps, request.harness), runId: sessionId };

    const made = allocated;
    // The records and the report to runs go together: one write for each record, the report beside them.
    const limits = limitsEntry(deps.provider, made, { runId, timeLimitMs: request.timeoutMs ?? deps.settings.defaultTimeoutMs });
    const [recorded, reported] = await Promise.allSettled([
      Promise.all([
        deps.runSessions.markRunning(runId, deps.instanceId, { sandboxId: made.sandboxId, sandboxDir: made.dir, runtimeProvider: runtime.provider }),
        deps.sandboxRecords.transition(sandboxRecordId, { status: 'ready', sandboxId: made.sandboxId, dir: made.dir }, [
          ...(limits ? [limits] : []),
          { eventType: 'ready', payload: { harness: request.harness } },
        ]),
      ]),
      publishWithRetry(
        deps.bus,
        'runs.sandbox-allocated',
        {
          key: runId,
          type: 'run.sandbox-allocated',
          id: `${runId}:sandbox-allocated`,
          data: { runId, sandboxRecordId, sandboxId: made.sandboxId, runtime },
        },
        { deadlineMs: deps.settings.publishDeadlineMs, logger: log },
      ),
    ]);
    if (recorded.status === 'rejected') throw recorded.reason;
    if (signal.aborted) return await stop(abortedResult());
    if (reported.status === 'rejected') {
      const error: unknown = reported.reason;
      if (error instanceof PublishError) return await stop(failed('sandbox_allocation', `the sandbox's allocation could not be reported: ${error.message}`, 0));
      throw error;
    }
    log.info({ sandbox_record_id: sandboxRecordId, sandbox_id: allocated.sandboxId, harness: request.harness }, 'sandbox allocated: session starting');
  } catch (error) {
    log.error({ err: error }, 'sandbox allocation failed');
    await stop(failed('sandbox_allocation', `the sandbox could not be allocated: ${error instanceof Error ? error.message : String(error)}`, 0)).catch(
      (endError: unknown) => {
        log.error({ err: endError }, 'the failed allocation could not be recorded: the sweeper will end the session');
      },
    );
    return;
  }

  const sandbox = allocated;
  void runSession(deps, { request, sandbox, sandboxRecordId, live })
    .catch((error: unknown) => log.error({ err: error }, 'session ended with an unexpected error'))
    .finally(end);
}

function abortResult(reason: AbortReason | null, eventCount: number): SessionResult {
  if (reason === 'shutdown') return failed('sandbox_lost', 'the sandbox was lost: the sandboxes service stopped during the run', eventCount);
  if (reason === 'timeout') return failed('harness_timeout', 'the run timed out before its harness started', eventCount);
  return cancelled(eventCount);
}

/** A request for a run that already has a session document. */
async function alreadyThere(deps: SessionDeps, existing: SessionDoc, request: RunRequestedData): Promise<void> {
  const log = deps.logger.child({ run_id: request.runId });
  if (existing.state === 'cancel_requested') {
    if (await deps.runSessions.finishPlaceholder(request.runId, cancelled(0))) {
      log.info('run cancelled before its request arrived: not started');
      deps.kickRelay();
    }
    return;
  }
  log.info({ state: existing.state }, 'run request already handled: nothing started');
}

/** `runtime.provider` of a run of this harness here: the provider, and whether a stand-in CLI runs it. */
function runtimeProviderOf(deps: SessionDeps, harness: RunRequestedData['harness']): string {
  return runtimeProvider(deps.provider.name, deps.settings.clis[harness].standIn ? 'stand-in' : 'agent');
}
