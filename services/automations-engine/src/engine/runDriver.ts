// The engine behind MongoDB: each happening is applied to a run's stored records by the pure core
// (applyHappening), written with a compare-and-set on the run's revision together with its dispatch
// messages (outbox), and only then are its effects performed. Every effect is idempotent (an agent
// run by its key, a timer by its id), so a crash anywhere loses nothing: the sweeper performs again
// what the records say must be in place (outstandingEffects).
import { context } from '@opentelemetry/api';
import { traceContext } from '@ars/bus';
import type { InternalRun, InternalStartRunBody } from '@ars/contract';
import { isAppError } from '@ars/errors';
import { requestHash } from '@ars/idempotency';
import type { Logger } from '@ars/logger';
import type { RunsClient } from '@ars/runs/client';
import { sanitizeText, type KnownSecrets } from '@ars/sanitize';
import { agentRunCost, type AiCall } from '../domain/automationRunView.js';
import { dispatchEventsOf } from '../domain/dispatchEvents.js';
import { applyHappening, isTerminal, outstandingEffects, type AgentRequest, type Effect, type Happening, type NodeRun } from '../domain/run/index.js';
import type { AutomationEventStore } from '../store/automationEvents.js';
import { hasAiCall, type AutomationRunRecord, type AutomationRunStore } from '../store/automationRuns.js';
import type { AutomationEventDoc } from '../store/collections.js';
import type { TimerStore } from '../store/timers.js';
import { recordAutomationTransition } from '../metrics.js';
import type { ProgramCache } from './programs.js';
import { recordEndedNodeRuns } from './runTrace.js';

/** A compare-and-set lost this many times in a row means something is wrong, not busy. */
const CAS_ATTEMPTS = 20;
/** How long an agent's last message may be in a node's output (what `nodes.<id>.output.lastMessage` reads). */
const LAST_MESSAGE_CAP = 20_000;
const AGENT_RUN_TERMINAL = new Set(['success', 'failed', 'cancelled']);

export interface EngineDeps {
  runs: AutomationRunStore;
  timers: TimerStore;
  events: AutomationEventStore;
  programs: ProgramCache;
  runsApi: Pick<RunsClient, 'startRun' | 'replayRun' | 'cancelRun' | 'getRun'>;
  logger: Logger;
  /** Wakes the outbox relay: a transition's dispatch messages go out now, not at the next poll. */
  kickOutbox: () => void;
  /** How long a live run may go unchanged before the sweeper looks at it. */
  checkAfterMs: number;
  /** The service's own secrets, redacted from agent texts like every other known secret. */
  secrets: KnownSecrets;
}

/**
 * What an agent node asks the runs service for: the same body (and so the same hash) every time it
 * is asked. Always its own generated working branch, from the run's base branch (else the
 * repository's default).
 */
export function agentRunBody(repoId: string, request: AgentRequest, baseBranch: string | null): InternalStartRunBody {
  return {
    repoId,
    prompt: request.prompt,
    harness: request.harness,
    createBranch: true,
    ...(baseBranch ? { baseBranch } : {}),
    ...(request.modelId ? { model: request.modelId } : {}),
  };
}

export class RunDriver {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: EngineDeps) {}

  /**
   * Applies the happening to the run (compare-and-set, retried on a lost race) and performs its
   * effects. The run after it, or null when there is no such run.
   */
  async apply(runId: string, happening: Happening, aiCall?: (run: AutomationRunRecord) => AiCall | undefined): Promise<AutomationRunRecord | null> {
    const applied = await this.write(runId, happening, aiCall);
    if (applied) await this.perform(applied.run, applied.effects);
    return applied?.run ?? null;
  }

  /** Like apply, but the effects are performed in the background (a route answers without waiting for the runs service). */
  async applyThenPerformLater(runId: string, happening: Happening): Promise<AutomationRunRecord | null> {
    const applied = await this.write(runId, happening);
    if (applied && applied.effects.length > 0) this.background(this.perform(applied.run, applied.effects));
    return applied?.run ?? null;
  }

  /** Waits for the effects still being performed in the background (shutdown). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private background(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.deps.logger.warn({ err: error }, 'an automation effect failed; the sweeper performs it again'));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  private async write(
    runId: string,
    happening: Happening,
    aiCall?: (run: AutomationRunRecord) => AiCall | undefined,
  ): Promise<{ run: AutomationRunRecord; effects: Effect[] } | null> {
    const { runs, programs } = this.deps;
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt += 1) {
      const current = await runs.find(runId);
      if (!current) return null;
      const transition = applyHappening(await programs.program(current), current.records, happening);
      const call = aiCall?.(current);
      if (!transition.changed) {
        // An agent run's end counts whatever the run's state: a join `any`'s loser (or an agent run
        // cancelled with its run) finishes after its node was cancelled, often after the run ended,
        // so its finish changes no record; its AI call is added alone, once, and nothing else changes.
        if (call && !hasAiCall(current.aiCalls, call.agentRunId) && (await runs.addAiCall(runId, call, new Date()))) {
          return { run: { ...current, aiCalls: [...current.aiCalls, call] }, effects: [] };
        }
        return { run: current, effects: [] };
      }
      const now = new Date();
      const dispatch = dispatchEventsOf(current.records, transition.records, happening.at, current.dispatchCount);
      const terminal = isTerminal(transition.records.run.status);
      const written = await runs.compareAndSet(current, {
        records: transition.records,
        dispatch,
        ...(call ? { aiCall: call } : {}),
        checkAt: terminal ? null : new Date(now.getTime() + this.deps.checkAfterMs),
        now,
        messages: dispatch.map((event) => ({
          topic: 'automations.dispatch' as const,
          key: runId,
          type: 'automation.dispatch',
          id: event.id,
          data: { automationRunId: runId, automationId: current.automationId, userId: current.userId, ...event },
        })),
      });
      if (!written) continue;
      this.deps.kickOutbox();
      // What this transition ended, as node-run spans of the run's trace and as the engine's metrics.
      const nodeTypes = await programs.nodeTypes(current.versionId);
      recordEndedNodeRuns({ automationId: current.automationId, automationRunId: runId, trace: current.trace }, current.records, transition.records, nodeTypes);
      recordAutomationTransition(current.records, transition.records, nodeTypes, current.createdAt);
      if (dispatch.some((event) => event.type.startsWith('run.'))) {
        const { status, error } = transition.records.run;
        this.deps.logger.info({ automation_run_id: runId, automation_id: current.automationId, status, error }, 'automation run changed status');
      }
      const run: AutomationRunRecord = {
        ...current,
        records: transition.records,
        revision: transition.records.run.revision,
        dispatch: [...current.dispatch, ...dispatch],
        dispatchCount: current.dispatchCount + dispatch.length,
        aiCalls: call && !hasAiCall(current.aiCalls, call.agentRunId) ? [...current.aiCalls, call] : current.aiCalls,
      };
      return { run, effects: transition.effects };
    }
    throw new Error(`automation run ${runId}: ${CAS_ATTEMPTS} writes in a row lost their compare-and-set`);
  }

  /** Performs effects in order; one that fails is logged and left to the sweeper (each is idempotent). */
  async perform(run: AutomationRunRecord, effects: Effect[]): Promise<void> {
    // In the run's trace: an agent node's run continues it through runs and sandboxes.
    await context.with(traceContext(run.trace), async () => {
      for (const effect of effects) {
        try {
          await this.performOne(run, effect);
        } catch (error) {
          this.deps.logger.warn({ automation_run_id: run.id, effect: effect.type, err: error }, 'an automation effect failed; the sweeper performs it again');
        }
      }
    });
  }

  private async performOne(run: AutomationRunRecord, effect: Effect): Promise<void> {
    const { timers } = this.deps;
    switch (effect.type) {
      case 'startAgentRun':
        return this.startAgentRun(run, effect);
      case 'cancelAgentRun':
        return this.cancelAgentRun(run, effect);
      case 'setTimer':
        return timers.set({
          _id: effect.timerId,
          automationRunId: run.id,
          nodeId: effect.nodeId,
          attempt: effect.attempt,
          kind: effect.kind,
          dueAt: new Date(effect.dueAt),
        });
      case 'clearTimer':
        return timers.clear(effect.timerId);
      // Events go to every live run of their user (deliverEvent), so a wait needs nothing stored:
      // the records say which await_event waits, and the core routes an event to it.
      case 'waitForEvent':
      case 'clearEventWait':
        return;
    }
  }

  private async startAgentRun(run: AutomationRunRecord, effect: Extract<Effect, { type: 'startAgentRun' }>): Promise<void> {
    const body = agentRunBody(effect.repoId, effect, run.baseBranch);
    const identity = { idempotencyKey: effect.idempotencyKey, requestHash: requestHash(body) };
    const at = (): string => new Date().toISOString();
    try {
      const started = await this.deps.runsApi.startRun(run.userId, body, identity);
      this.deps.logger.info({ automation_run_id: run.id, node_id: effect.nodeId, run_id: started.runId, replayed: started.replayed }, 'agent run started');
      await this.apply(run.id, { type: 'agentRunStarted', nodeId: effect.nodeId, attempt: effect.attempt, agentRunId: started.runId, at: at() });
    } catch (error) {
      // A refusal (the repository gone, a prompt too long): the node fails. Anything else is left to the sweeper.
      if (!isAppError(error) || error.status >= 500 || error.status === 429) throw error;
      await this.apply(run.id, { type: 'agentRunRefused', nodeId: effect.nodeId, attempt: effect.attempt, message: error.message, at: at() });
    }
  }

  private async cancelAgentRun(run: AutomationRunRecord, effect: Extract<Effect, { type: 'cancelAgentRun' }>): Promise<void> {
    const { runsApi } = this.deps;
    let agentRunId = effect.agentRunId;
    if (agentRunId === undefined) {
      // Not confirmed: the run the key made, if the start reached the runs service at all (a replay makes nothing).
      const nodeRun = run.records.nodeRuns[effect.nodeId];
      if (!nodeRun) return;
      const body = agentRunBody(run.repoId, nodeRun.input as unknown as AgentRequest, run.baseBranch);
      const made = await runsApi.replayRun(run.userId, body, { idempotencyKey: effect.idempotencyKey, requestHash: requestHash(body) });
      agentRunId = made?.runId;
    }
    if (agentRunId === undefined) return;
    const answer = await runsApi.cancelRun(run.userId, agentRunId);
    this.deps.logger.info({ automation_run_id: run.id, node_id: effect.nodeId, run_id: agentRunId, status: answer.status }, 'agent run cancelled');
  }

  /**
   * An agent run ended (runs.finished, or the sweeper asking the runs service): its node continues or
   * fails, and its AI call (usage, cost, status) is recorded on the run once, whatever the run's state
   * (a node already cancelled, a run already ended: then only the AI call is added).
   */
  async agentRunFinished(run: AutomationRunRecord, agentRun: InternalRun): Promise<void> {
    if (!AGENT_RUN_TERMINAL.has(agentRun.status)) return;
    const status = agentRun.status as 'success' | 'failed' | 'cancelled';
    const nodeRun = Object.values(run.records.nodeRuns).find((candidate) => candidate.agentRunId === agentRun.runId);
    const lastMessage = agentRun.lastMessage === null ? null : sanitizeText(agentRun.lastMessage, { cap: LAST_MESSAGE_CAP, knownSecrets: this.deps.secrets });
    const aiCall = (current: AutomationRunRecord): AiCall | undefined => {
      const node = Object.values(current.records.nodeRuns).find((candidate) => candidate.agentRunId === agentRun.runId) ?? nodeRun;
      if (!node) return undefined;
      const request = node.input as unknown as AgentRequest;
      return {
        nodeId: node.nodeId,
        agentRunId: agentRun.runId,
        agentId: request.agentId,
        model: agentRun.model,
        harness: agentRun.harness,
        status,
        usage: agentRun.usage,
        costUsd: agentRunCost(agentRun.usage, request.modelId ? current.catalog.pricing[request.modelId] : undefined),
        finishedAt: agentRun.updatedAt,
      };
    };
    await this.apply(
      run.id,
      { type: 'agentRunFinished', agentRunId: agentRun.runId, status, lastMessage, branch: agentRun.branch.working, at: new Date().toISOString() },
      aiCall,
    );
  }

  /**
   * What the sweeper does for a live run nothing has changed for a while: a run still `pending` is
   * triggered; otherwise every effect its records say must be in place is performed again, and each
   * agent run a node still waits for is asked for (a finish whose message came before the start was
   * recorded, or was lost, is found this way).
   */
  async check(runId: string): Promise<void> {
    const run = await this.deps.runs.find(runId);
    // A held run waits for its release, whatever else reaches it meanwhile (an event, a cancel).
    if (!run || isTerminal(run.records.run.status) || run.held) return;
    if (run.records.run.status === 'pending') {
      await this.apply(runId, { type: 'triggered', at: new Date().toISOString() });
      return;
    }
    await this.perform(run, outstandingEffects(await this.deps.programs.program(run), run.records));
    const waiting = Object.values(run.records.nodeRuns).filter(
      (nodeRun): nodeRun is NodeRun & { agentRunId: string } => nodeRun.status === 'running' && !!nodeRun.agentRunId,
    );
    for (const nodeRun of waiting) {
      const agentRun = await this.deps.runsApi.getRun(run.userId, nodeRun.agentRunId);
      if (AGENT_RUN_TERMINAL.has(agentRun.status)) await this.agentRunFinished((await this.deps.runs.find(runId)) ?? run, agentRun);
    }
  }

  /** Delivers an event to every run of its user that was live when it arrived, then marks it delivered. */
  async deliverEvent(event: AutomationEventDoc): Promise<number> {
    const runIds = await this.deps.runs.liveOfUserCreatedBy(event.userId, event.receivedAt);
    const receivedAt = event.receivedAt.toISOString();
    for (const runId of runIds) {
      await this.apply(runId, {
        type: 'eventReceived',
        event: { id: event._id, name: event.name, data: (event.data ?? null) as never, receivedAt },
        at: new Date().toISOString(),
      });
    }
    await this.deps.events.delivered(event._id);
    return runIds.length;
  }
}
