// Drives the engine's pure core (`domain/run`) the way the store will: applies each effect's answer
// as a happening (agent runs start and finish, timers fire on a pretend clock) until the run ends.
import type { JsonValue } from '../domain/expressions.js';
import type { FlowGraph, FlowNode } from '../domain/flowGraph.js';
import {
  applyHappening,
  isTerminal,
  newRunRecords,
  prepareGraph,
  type AgentCatalog,
  type Effect,
  type Happening,
  type RunProgram,
  type RunRecords,
  type Transition,
} from '../domain/run/index.js';

export type StartAgentRun = Extract<Effect, { type: 'startAgentRun' }>;
export type CancelAgentRun = Extract<Effect, { type: 'cancelAgentRun' }>;
type SetTimer = Extract<Effect, { type: 'setTimer' }>;

/** How a node's agent run ends: `never` keeps it running until the engine cancels it; `refused` never starts it. */
export type AgentOutcome = 'success' | 'failed' | 'cancelled' | 'never' | 'refused';

export interface SimulatorOptions {
  input?: Record<string, JsonValue>;
  catalog?: AgentCatalog;
  /** By agent node id; an agent node not named here succeeds. */
  agentOutcomes?: Record<string, AgentOutcome>;
  /** Applies every happening twice and throws unless the second changes nothing. */
  replay?: boolean;
}

export const SIMULATION_START = Date.parse('2026-01-01T00:00:00.000Z');

export class EngineSimulator {
  records: RunRecords;
  /** Every startAgentRun effect performed: one per agent node executed, if no agent starts twice. */
  readonly started: StartAgentRun[] = [];
  readonly cancelled: CancelAgentRun[] = [];
  readonly effects: Effect[] = [];
  /** Pending timers by id. */
  readonly timers = new Map<string, SetTimer>();
  /** Registered event waits, `<nodeId>:<attempt>`. */
  readonly waits = new Set<string>();
  now = SIMULATION_START;
  private readonly program: RunProgram;
  private readonly finishing: { agentRunId: string; nodeId: string; outcome: 'success' | 'failed' | 'cancelled' }[] = [];
  private eventCount = 0;

  constructor(
    graph: FlowGraph,
    private readonly options: SimulatorOptions = {},
  ) {
    this.program = { graph: prepareGraph(graph), catalog: options.catalog ?? { agents: {}, models: {} } };
    this.records = newRunRecords({ id: 'arun-1', repoId: 'repo-1', input: options.input ?? {} });
  }

  get at(): string {
    return new Date(this.now).toISOString();
  }

  /** Applies one happening (twice with `replay`) and performs its effects. */
  apply(happening: Happening): Transition {
    const transition = applyHappening(this.program, this.records, happening);
    this.records = transition.records;
    if (this.options.replay) this.expectNoChange(happening);
    for (const effect of transition.effects) this.perform(effect);
    return transition;
  }

  trigger(): Transition {
    return this.apply({ type: 'triggered', at: this.at });
  }

  send(name: string, data: JsonValue = null): Transition {
    this.eventCount += 1;
    return this.apply({ type: 'eventReceived', event: { id: `event-${this.eventCount}`, name, data, receivedAt: this.at }, at: this.at });
  }

  cancel(): Transition {
    return this.apply({ type: 'cancelRequested', at: this.at });
  }

  /** Finishes the oldest finishing agent run, else fires the earliest timer; false when neither is left. */
  advance(): boolean {
    const agent = this.finishing.shift();
    if (agent !== undefined) {
      const { agentRunId, outcome, nodeId } = agent;
      const branch = `automation/${nodeId}`;
      this.apply({ type: 'agentRunFinished', agentRunId, status: outcome, lastMessage: `${nodeId} done`, branch, at: this.at });
      return true;
    }
    const [timer] = [...this.timers.values()].sort((a, b) => a.dueAt.localeCompare(b.dueAt));
    if (timer === undefined) return false;
    this.now = Math.max(this.now, Date.parse(timer.dueAt));
    this.timers.delete(timer.timerId);
    this.apply({ type: 'timerFired', nodeId: timer.nodeId, attempt: timer.attempt, kind: timer.kind, at: this.at });
    return true;
  }

  /** Triggers (when pending) and advances until the run ends or nothing is left to do. */
  run(): RunRecords {
    if (this.records.run.status === 'pending') this.trigger();
    while (!isTerminal(this.records.run.status) && this.advance());
    return this.records;
  }

  statusOf(nodeId: string): string | undefined {
    return this.records.nodeRuns[nodeId]?.status;
  }

  private expectNoChange(happening: Happening): void {
    const again = applyHappening(this.program, this.records, happening);
    if (again.changed || again.effects.length > 0) throw new Error(`replaying ${happening.type} changed the run: ${JSON.stringify(again.effects)}`);
  }

  private perform(effect: Effect): void {
    this.effects.push(effect);
    if (effect.type === 'startAgentRun') this.startAgentRun(effect);
    if (effect.type === 'cancelAgentRun') this.cancelled.push(effect);
    if (effect.type === 'setTimer') this.timers.set(effect.timerId, effect);
    if (effect.type === 'clearTimer') this.timers.delete(effect.timerId);
    if (effect.type === 'waitForEvent') this.waits.add(`${effect.nodeId}:${effect.attempt}`);
    if (effect.type === 'clearEventWait') this.waits.delete(`${effect.nodeId}:${effect.attempt}`);
  }

  private startAgentRun(effect: StartAgentRun): void {
    const { nodeId, attempt } = effect;
    const outcome = this.options.agentOutcomes?.[nodeId] ?? 'success';
    if (outcome === 'refused') return void this.apply({ type: 'agentRunRefused', nodeId, attempt, message: 'refused by the simulator', at: this.at });
    this.started.push(effect);
    const agentRunId = `agent-run-${this.started.length}`;
    this.apply({ type: 'agentRunStarted', nodeId, attempt, agentRunId, at: this.at });
    if (outcome !== 'never') this.finishing.push({ agentRunId, nodeId, outcome });
  }
}

type NodeSpec = [id: string, type: FlowNode['type'], data?: Record<string, unknown>];
type EdgeSpec = [source: string, target: string, sourceHandle?: string];

/** A graph from `[id, type, data]` nodes and `[source, target, handle]` edges (positions do not matter here). */
export function flow(nodes: NodeSpec[], edges: EdgeSpec[]): FlowGraph {
  return {
    nodes: nodes.map(([id, type, data = {}], index) => ({ id, type, position: { x: index * 200, y: 0 }, data })),
    edges: edges.map(([source, target, sourceHandle]) => ({
      id: `${source}-${sourceHandle ?? 'out'}-${target}`,
      source,
      target,
      sourceHandle: sourceHandle ?? null,
    })),
  };
}

/** start → one agent node (`nodeId`, with `data`) → end: the smallest graph that runs an agent. */
export function oneAgent(data: Record<string, unknown>, nodeId = 'a'): FlowGraph {
  return flow(
    [
      ['start', 'start'],
      [nodeId, 'agent', data],
      ['end', 'end'],
    ],
    [
      ['start', nodeId],
      [nodeId, 'end'],
    ],
  );
}
