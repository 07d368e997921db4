// The automation run records of the contract (`GET /automations/{id}/runs` and `/runs/{runId}`),
// built from a stored run: the contract names what they hold, this file fixes every field (README,
// "Automation run records"). No I/O; texts are sanitized here, whatever they came from.
import type { ReviewFinding, RunUsage } from '@ars/contract';
import { isSensitiveKey, REDACTED, sanitizeText } from '@ars/sanitize';
import type { JsonValue } from './expressions.js';
import type { NodeType } from './flowGraph.js';
import type { AutomationRunStatus, NodeRunStatus, RunRecords } from './run/index.js';
import type { Harness } from './nodeData.js';

/** A model's price as the catalog lists it (`Model.pricing`): US dollars per million tokens; null when unknown. */
export interface ModelPricing {
  input: number | null;
  output: number | null;
}

/** One agent run of the automation run, once it finished ("AI calls"). */
export interface AiCall {
  nodeId: string;
  agentRunId: string;
  agentId: string;
  /** The model the agent ran with (the runs service's record), null for the harness's default. */
  model: string | null;
  harness: Harness;
  status: 'success' | 'failed' | 'cancelled';
  usage: RunUsage | null;
  /** From the usage and the model's pricing; null when either is unknown. */
  costUsd: number | null;
  finishedAt: string;
}

/** What happened to the run, in order (also published to `automations.dispatch`). */
export interface DispatchEvent {
  /** `<automationRunId>:dispatch:<seq>`. */
  id: string;
  seq: number;
  /** `run.<status>`, `node.<status>`, `agent_run.started`, `event.received`. */
  type: string;
  nodeId: string | null;
  message: string;
  at: string;
}

/** What a stored run is, as the views read it (the store's document, records parsed). */
export interface StoredAutomationRun {
  id: string;
  automationId: string;
  versionId: string;
  versionNumber: number;
  repoId: string;
  baseBranch: string | null;
  records: RunRecords;
  aiCalls: AiCall[];
  reviewFindings: ReviewFinding[];
  dispatch: DispatchEvent[];
  dispatchCount: number;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

export interface NodeRunSummary {
  nodeId: string;
  type: NodeType | null;
  status: NodeRunStatus;
}

export interface NodeRunView extends NodeRunSummary {
  attempt: number;
  startedAt: string | null;
  endedAt: string | null;
  input: JsonValue;
  output: JsonValue;
  error: string | null;
  agentRunId: string | null;
}

/** The list item. */
export interface AutomationRunSummary {
  id: string;
  automationId: string;
  versionId: string;
  versionNumber: number;
  status: AutomationRunStatus;
  repoId: string;
  /** The branch its agent runs start from (null: the repository's default branch). */
  baseBranch: string | null;
  /** The agents the run's agent nodes ran, how many agent runs it started and how many still run. */
  agent: { agentIds: string[]; agentRuns: number; running: number };
  /** Summed over its finished agent runs. */
  usage: RunUsage;
  /** Summed over the agent runs whose cost is known; null when none is. */
  costUsd: number | null;
  latestDispatchEvent: DispatchEvent | null;
  nodeRuns: NodeRunSummary[];
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}

/** The detail. */
export interface AutomationRunDetail extends Omit<AutomationRunSummary, 'nodeRuns'> {
  input: JsonValue;
  vars: JsonValue;
  nodeRuns: NodeRunView[];
  /** The latest dispatch events (at most DISPATCH_KEPT), oldest first, and how many there were in all. */
  dispatchEvents: DispatchEvent[];
  dispatchEventCount: number;
  aiCalls: AiCall[];
  /** Events of `POST /automations/events` the run received, oldest first, with the await_event that took each. */
  events: { id: string; name: string; data: JsonValue; receivedAt: string; consumedBy: string | null }[];
  errors: { nodeId: string | null; message: string }[];
  /** Findings of the PR review the run made (pr-review hands them over); an automation's own runs have none. */
  reviewFindings: ReviewFinding[];
}

/** How long a text of a view may be (a rendered prompt is at most 100,000 characters). */
const VIEW_TEXT_CAP = 100_000;

function sanitizedJson(value: JsonValue): JsonValue {
  if (typeof value === 'string') return sanitizeText(value, { cap: VIEW_TEXT_CAP });
  if (Array.isArray(value)) return value.map(sanitizedJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, isSensitiveKey(key) ? REDACTED : sanitizedJson(item)]));
  }
  return value;
}

const ZERO_USAGE: RunUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

export function addUsage(total: RunUsage, usage: RunUsage | null): RunUsage {
  if (!usage) return total;
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    cachedInputTokens: total.cachedInputTokens + usage.cachedInputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
  };
}

/** The cost of one agent run: input and output tokens at the model's prices per million; null when a price or the usage is unknown. */
export function agentRunCost(usage: RunUsage | null, pricing: ModelPricing | undefined): number | null {
  if (!usage || !pricing || pricing.input === null || pricing.output === null) return null;
  return (usage.inputTokens * pricing.input + usage.outputTokens * pricing.output) / 1_000_000;
}

function totalCost(calls: AiCall[]): number | null {
  const known = calls.filter((call) => call.costUsd !== null);
  return known.length === 0 ? null : known.reduce((sum, call) => sum + (call.costUsd ?? 0), 0);
}

type NodeTypes = ReadonlyMap<string, NodeType>;

function summaryFields(run: StoredAutomationRun, types: NodeTypes): Omit<AutomationRunSummary, 'nodeRuns'> {
  const { records } = run;
  const nodeRuns = Object.values(records.nodeRuns);
  const agentNodes = nodeRuns.filter((nodeRun) => types.get(nodeRun.nodeId) === 'agent');
  const agentIds = [...new Set(agentNodes.map((nodeRun) => (nodeRun.input as { agentId?: string } | null)?.agentId).filter((id): id is string => !!id))];
  return {
    id: run.id,
    automationId: run.automationId,
    versionId: run.versionId,
    versionNumber: run.versionNumber,
    status: records.run.status,
    repoId: run.repoId,
    baseBranch: run.baseBranch,
    agent: {
      agentIds,
      agentRuns: agentNodes.filter((nodeRun) => nodeRun.agentRunId !== undefined).length,
      running: agentNodes.filter((nodeRun) => nodeRun.status === 'running').length,
    },
    usage: run.aiCalls.reduce((total, call) => addUsage(total, call.usage), ZERO_USAGE),
    costUsd: totalCost(run.aiCalls),
    latestDispatchEvent: run.dispatch.at(-1) ?? null,
    error: records.run.error === undefined ? null : sanitizeText(records.run.error, { cap: 2_000 }),
    createdAt: run.createdAt.toISOString(),
    startedAt: records.run.startedAt ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    updatedAt: run.updatedAt.toISOString(),
  };
}

export function toAutomationRunSummary(run: StoredAutomationRun, types: NodeTypes): AutomationRunSummary {
  const nodeRuns = Object.values(run.records.nodeRuns).map((nodeRun) => ({
    nodeId: nodeRun.nodeId,
    type: types.get(nodeRun.nodeId) ?? null,
    status: nodeRun.status,
  }));
  return { ...summaryFields(run, types), nodeRuns };
}

export function toAutomationRunDetail(run: StoredAutomationRun, types: NodeTypes): AutomationRunDetail {
  const { records } = run;
  const nodeRuns: NodeRunView[] = Object.values(records.nodeRuns).map((nodeRun) => ({
    nodeId: nodeRun.nodeId,
    type: types.get(nodeRun.nodeId) ?? null,
    status: nodeRun.status,
    attempt: nodeRun.attempt,
    startedAt: nodeRun.startedAt ?? null,
    endedAt: nodeRun.endedAt ?? null,
    input: sanitizedJson(nodeRun.input),
    output: sanitizedJson(nodeRun.output),
    error: nodeRun.error === undefined ? null : sanitizeText(nodeRun.error, { cap: 2_000 }),
    agentRunId: nodeRun.agentRunId ?? null,
  }));
  const errors: AutomationRunDetail['errors'] = nodeRuns.flatMap((nodeRun) =>
    nodeRun.error === null ? [] : [{ nodeId: nodeRun.nodeId, message: nodeRun.error }],
  );
  const summary = summaryFields(run, types);
  // The run's own error when no node's explains it (it names the node when one does).
  const runError = summary.error;
  if (runError !== null && !errors.some((error) => runError.includes(error.message))) errors.push({ nodeId: null, message: runError });
  return {
    ...summary,
    input: sanitizedJson(records.run.input),
    vars: sanitizedJson(records.run.vars),
    nodeRuns,
    dispatchEvents: run.dispatch,
    dispatchEventCount: run.dispatchCount,
    aiCalls: run.aiCalls,
    events: records.inbox.map((event) => ({
      id: event.id,
      name: event.name,
      data: sanitizedJson(event.data),
      receivedAt: event.receivedAt,
      consumedBy: event.consumedBy ?? null,
    })),
    errors,
    reviewFindings: run.reviewFindings.map((finding) => ({
      ...finding,
      title: finding.title === null ? null : sanitizeText(finding.title, { cap: 500 }),
      message: sanitizeText(finding.message, { cap: 4_000 }),
    })),
  };
}
