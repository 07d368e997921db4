// One harness turn in an allocated sandbox: events out in order, then the push, then the result.
import { context } from '@opentelemetry/api';
import { traceHeaders, type RunRequestedData } from '@ars/bus';
import type { RunUsage } from '@ars/contract';
import { harnessEnvironment } from '../domain/environment.js';
import { sanitizedEvent } from '../domain/eventPayload.js';
import { failed, harnessOutcome, sandboxLimitReached, succeeded, timeoutMessage } from '../domain/outcome.js';
import { addUsage, usageOfReport } from '../domain/runUsage.js';
import { addGrowth, NO_USAGE } from '../domain/providerUsage.js';
import { harnessModeOf, runHarness, type HarnessEvent, type HarnessResult } from '../harness/index.js';
import type { AllocatedSandbox, ModelDoorOfRun } from '../providers/provider.js';
import type { SessionResult } from '../store/collections.js';
import type { SessionDeps } from './deps.js';
import { ConversationOverLimit, keepThread, threadToResume } from './conversationThread.js';
import { endSession } from './endSession.js';
import type { LiveSession } from './liveSessions.js';
import { PublishError, publishManyWithRetry } from './publish.js';
import { RunEventPublisher } from './runEventPublisher.js';
import { startHarnessTrace, type HarnessTrace } from './runTrace.js';
import { prepareStandInTools } from './standInTools.js';
import { workspaceOf } from './workspaceSandbox.js';

export interface SessionInput {
  request: RunRequestedData;
  sandbox: AllocatedSandbox;
  sandboxRecordId: string;
  live: LiveSession;
}

/** True when the run's result goes back to the source repository (a branch of its own). */
export function pushesResult(branch: RunRequestedData['branch']): boolean {
  return branch.working !== branch.base || branch.createBranch;
}

export async function runSession(deps: SessionDeps, input: SessionInput): Promise<void> {
  const { request, sandbox, live } = input;
  const { runId, harness } = request;
  const log = deps.logger.child({ run_id: runId });
  const timeoutMs = request.timeoutMs ?? deps.settings.defaultTimeoutMs;
  const timer = setTimeout(() => deps.live.abort(runId, 'timeout'), timeoutMs);
  let seq = 0;
  let publishError: string | null = null;
  // Counted as reported, whatever happens to the event: the tokens were spent.
  let usage: RunUsage | null = null;
  // Nothing is published with a secret this service knows: its own, and the run's clone token.
  const secrets = deps.settings.secrets.with(live.secrets);
  const cli = deps.settings.clis[harness];
  const standIn = cli.standIn;
  // Set once the harness starts: its span, a tool call's span per tool_call event.
  let harnessTrace: HarnessTrace | undefined;

  // With a model gateway, the run's tokens are what the provider reported to it: the CLI's own report is not taken.
  let gatewayUsage: GatewayUsage | null = null;

  // Events leave in order, several to a send while the bus is busy; the run's event count is what was sent.
  const events = new RunEventPublisher(
    (messages) => publishManyWithRetry(deps.bus, 'runs.agent-events', messages, { deadlineMs: deps.settings.publishDeadlineMs, logger: log }),
    (sent) => deps.runSessions.recordEventCount(runId, sent).catch((error: unknown) => log.warn({ err: error }, 'event count not recorded')),
  );
  const failedToPublish = (error: unknown): void => {
    if (!(error instanceof PublishError)) return;
    publishError = error.message;
    live.reason ??= 'publish';
  };

  const onEvent = async (reported: HarnessEvent): Promise<void> => {
    let event = reported;
    if (event.type === 'usage') {
      if (gatewayUsage) event = gatewayUsage.event(event);
      else usage = addUsage(usage, usageOfReport(harness, event.payload));
    }
    const current = seq;
    const sanitized = sanitizedEvent(event, secrets);
    // The event's trace context (a tool call's span, else the harness span) travels with it.
    const headers = harnessTrace ? await harnessTrace.event(event, sanitized.toolName, async () => traceHeaders()) : traceHeaders();
    seq = current + 1;
    try {
      await events.add({
        key: runId,
        type: 'run.agent-event',
        id: `${runId}:event:${current}`,
        headers,
        data: { runId, seq: current, ...sanitized, emittedAt: new Date().toISOString() },
      });
    } catch (error) {
      failedToPublish(error);
      throw error;
    }
  };
  /** Every event sent: the run's event count (an event that could not be sent fails the run). */
  const sentEvents = async (): Promise<number> => {
    await events.drain().catch((error: unknown) => {
      publishError ??= error instanceof Error ? error.message : String(error);
      live.reason ??= 'publish';
    });
    return events.published;
  };

  let result: SessionResult;
  try {
    let harnessResult: HarnessResult;
    harnessTrace = startHarnessTrace({ runId, harness, standIn });
    const standInTools = await prepareStandInTools(cli, sandbox, request.prompt);
    const launch = await deps.provider.launchHarness(sandbox, {
      harness,
      executablePath: cli.executablePath,
      ...(cli.files ? { cliFiles: cli.files } : {}),
      ...(standInTools ? { toolFiles: standInTools.files } : {}),
      env: {
        ...harnessEnvironment({ path: deps.settings.harnessPath, home: sandbox.home, lang: deps.settings.lang, tz: deps.settings.tz }),
        ...harnessTrace.env,
      },
      cwd: sandbox.cwd,
      // No network during the turn: a real CLI reaches its model through the provider's model access, and nothing else.
      modelAccess: !cli.standIn,
      readOnlyTree: harnessModeOf(request.mode).readOnly,
    });
    if (launch.model) {
      gatewayUsage = new GatewayUsage(launch.model);
      // The run's credential is never shown, like the service's own secrets.
      live.secrets.push(launch.model.credential);
      launch.model.onBudgetSpent((spent, budget) => {
        live.limit ??= {
          code: 'token_budget',
          message: `token budget: the run used ${spent.inputTokens + spent.outputTokens} tokens, over its budget of ${budget} (RUN_TOKEN_BUDGET)`,
        };
        deps.live.abort(runId, 'limit');
      });
    }
    // The working directory as the harness sees it (a Pod's, not the local shim's): Claude Code names its thread folder after it.
    const place = { sandbox, sandboxRecordId: input.sandboxRecordId, cwd: sandbox.cwd };
    const resumeThreadId = await threadToResume(deps, request, place).catch(async (error: unknown) => {
      if (error instanceof ConversationOverLimit) {
        await launch.close().catch((closing: unknown) => log.warn({ err: closing }, 'harness launch not closed'));
        throw error;
      }
      log.warn({ err: error }, "the conversation's thread could not be read: the run starts a new thread");
      return null;
    });
    // Only what this session wrote into HOME since the allocation handed the sandbox over (the stand-in
    // tools' prompt, a conversation's restored thread, even a partly restored one) is the service's.
    if (standInTools || request.conversationId) await deps.provider.handOver?.(sandbox);
    const turn = harnessTrace;
    // A limit reached once ends the run: an agent whose fork was refused would otherwise carry on.
    const limitWatch = watchLimits(deps, sandbox, live);
    try {
      harnessResult = await context.with(turn.context, () =>
        runHarness({
          harness,
          prompt: request.prompt,
          cwd: launch.cwd,
          treeRoot: sandbox.cwd,
          env: launch.env,
          // The run's own credential through the gateway; a provider without one hands the CLI the key itself.
          ...(launch.model ? { apiKey: launch.model.credential } : deps.settings.apiKeys[harness] ? { apiKey: deps.settings.apiKeys[harness] } : {}),
          ...(request.model ? { model: request.model } : {}),
          ...(standInTools ? { toolServers: standInTools.servers } : {}),
          mode: request.mode ?? null,
          resumeThreadId,
          ...(launch.modelBaseUrl ? { modelBaseUrl: launch.modelBaseUrl } : {}),
          containedByCaller: launch.contained,
          signal: live.controller.signal,
          ...(launch.executablePath ? { executablePath: launch.executablePath } : {}),
          onEvent,
        }),
      );
      turn.end(harnessResult.status);
    } catch (error) {
      // Only onEvent makes runHarness reject: the bus was unreachable for too long (or a bug).
      live.reason ??= 'publish';
      publishError ??= error instanceof Error ? error.message : String(error);
      harnessResult = { status: 'cancelled' };
      turn.end(harnessResult.status);
    } finally {
      await limitWatch.stop();
      await launch.close().catch((error: unknown) => log.warn({ err: error }, 'harness launch not closed'));
    }
    if (harnessResult.threadId) {
      await keepThread(deps, request, place, harnessResult.threadId, secrets).catch((error: unknown) =>
        log.warn({ err: error }, "the conversation's thread could not be kept: its next run starts a new thread"),
      );
    }
    clearTimeout(timer);
    // Tokens the CLI never reported (it crashed, was cancelled or stopped by the budget) are still the run's.
    if (gatewayUsage?.unreported()) await onEvent(gatewayUsage.remainder()).catch((error: unknown) => log.warn({ err: error }, 'usage event not published'));
    await recordLimitReached(deps, input.sandboxRecordId, live, timeoutMs);
    const eventCount = await sentEvents();
    const outcome = harnessOutcome(harness, harnessResult, { reason: live.reason, timeoutMs, publishError, limit: live.limit }, eventCount);
    result = outcome === 'success' ? await pushIfAsked(deps, input, eventCount) : outcome;
  } catch (error) {
    if (error instanceof ConversationOverLimit) {
      harnessTrace?.end('failed');
      result = failed('agent', error.message, await sentEvents());
    } else {
      harnessTrace?.end('crashed');
      log.error({ err: error }, 'session failed unexpectedly');
      result = failed('harness_crash', `the session failed: ${error instanceof Error ? error.message : String(error)}`, await sentEvents());
    }
  } finally {
    clearTimeout(timer);
  }
  const totals = gatewayUsage ? gatewayUsage.total() : usage;
  if (totals !== null) result = { ...result, usage: totals };
  await endSession(deps, {
    runId,
    sandboxRecordId: input.sandboxRecordId,
    sandbox: { sandboxId: sandbox.sandboxId, dir: sandbox.dir },
    result,
    secrets,
    workspace: workspaceOf(request, sandbox, live.reason),
  });
}

/** How often a running session asks whether its sandbox reached a limit. */
const LIMIT_POLL_MS = 500;

/**
 * Watches the sandbox's limits while the harness runs: the first one reached aborts the run
 * (reason `limit`). `stop()` looks once more, so a limit reached in the turn's last moment counts.
 */
function watchLimits(deps: SessionDeps, sandbox: AllocatedSandbox, live: LiveSession): { stop(): Promise<void> } {
  const provider = deps.provider;
  if (!provider.limitReached) return { stop: () => Promise.resolve() };
  const ref = { sandboxId: sandbox.sandboxId, dir: sandbox.dir };
  const check = async (fresh: boolean): Promise<void> => {
    const hit = await provider.limitReached?.(ref, { fresh }).catch(() => null);
    if (!hit || live.reason !== null) return;
    live.limit ??= sandboxLimitReached(hit.code, hit.limits, hit.setting);
    deps.live.abort(live.runId, 'limit');
  };
  let checking = Promise.resolve();
  const timer = setInterval(() => {
    checking = checking.then(() => check(false));
  }, LIMIT_POLL_MS);
  return {
    // The last look reads afresh: a provider that answers polls from a recent read (a Pod's status) must not miss what ended the turn.
    stop: async () => {
      clearInterval(timer);
      await checking;
      await check(true);
    },
  };
}

/** A run ended by a limit (or its wall-clock limit) says so in its sandbox's lifecycle. */
async function recordLimitReached(deps: SessionDeps, sandboxRecordId: string, live: LiveSession, timeoutMs: number): Promise<void> {
  const limit = live.reason === 'limit' ? live.limit : live.reason === 'timeout' ? { code: 'time_limit' as const, message: timeoutMessage(timeoutMs) } : null;
  if (!limit) return;
  await deps.sandboxRecords
    .event(sandboxRecordId, { eventType: 'limit_reached', decisionCode: limit.code, runId: live.runId, payload: { message: limit.message } })
    .catch((error: unknown) => deps.logger.warn({ err: error, run_id: live.runId }, 'limit event not recorded'));
}

/** On success with a branch of its own: commit the agent's changes and push them, with a fresh clone URL. */
async function pushIfAsked(deps: SessionDeps, input: SessionInput, eventCount: number): Promise<SessionResult> {
  const { request, sandbox } = input;
  if (!pushesResult(request.branch)) return succeeded(eventCount);
  const working = request.branch.working;
  try {
    const { clone_url: pushUrl } = await deps.catalog.repo(request.userId, request.repoId);
    const pushed = await deps.provider.commitAndPush(sandbox, {
      workingBranch: working,
      pushUrl,
      commitMessage: `Agent run ${request.runId}\n\nChanges made by the ${request.harness} agent of run ${request.runId}.`,
    });
    deps.logger.info({ run_id: request.runId, branch: working, commit: pushed.commit, committed: pushed.committed }, 'working branch pushed');
    return succeeded(eventCount);
  } catch (error) {
    return failed('push', `the changes could not be pushed to branch "${working}": ${error instanceof Error ? error.message : String(error)}`, eventCount);
  }
}

/**
 * The usage events of a run through the model gateway: each `usage` the CLI reports is replaced by
 * what the gateway counted since the previous one (the provider's own figures, every input token
 * for both harnesses), so the events add up to the run's total whatever the agent prints.
 */
class GatewayUsage {
  private published: RunUsage = NO_USAGE;

  constructor(private readonly door: ModelDoorOfRun) {}

  total(): RunUsage | null {
    return this.door.usage();
  }

  /** The CLI's usage event, its figures replaced by the gateway's since the last one. */
  event(reported: HarnessEvent): HarnessEvent {
    return { ...reported, payload: this.take() };
  }

  /** True when the gateway counted tokens no event carried yet. */
  unreported(): boolean {
    const total = this.door.usage() ?? NO_USAGE;
    return (
      total.inputTokens + total.outputTokens + total.cachedInputTokens >
      this.published.inputTokens + this.published.outputTokens + this.published.cachedInputTokens
    );
  }

  /** A usage event of the tokens no event carried yet. */
  remainder(): HarnessEvent {
    return { type: 'usage', toolName: null, message: null, payload: this.take() };
  }

  private take(): Record<string, unknown> {
    const total = this.door.usage() ?? NO_USAGE;
    const since = addGrowth(NO_USAGE, this.published, total);
    this.published = total;
    return { ...since, source: 'model_gateway' };
  }
}
