// Test support: graphs written as lists, an automation published and triggered in one call, and the
// agent runs of its nodes played to their end through the runs service in-process (the harness's
// `runs`): what the execution tests read like.
import { randomUUID } from 'node:crypto';
import type { RunUsage } from '@ars/contract';
import type { Answer } from '@ars/testenv';
import { waitFor } from '@ars/testenv';
import type { AutomationRunDetail, AutomationRunSummary } from '../domain/automationRunView.js';
import type { Automation } from '../domain/automationView.js';
import type { FlowGraph, NodeType } from '../domain/flowGraph.js';
import type { TriggerResult } from '../http/triggerAutomation.js';
import type { AutomationsHarness, AutomationTenant } from './automationsHarness.js';

/** `[id, type, data]`; `[source, target, sourceHandle?]`. */
export type NodeSpec = [string, NodeType, Record<string, unknown>?];
export type EdgeSpec = [string, string, string?];

export function graphOf(nodes: NodeSpec[], edges: EdgeSpec[]): FlowGraph {
  return {
    nodes: nodes.map(([id, type, data], index) => ({ id, type, position: { x: index * 200, y: 0 }, data: data ?? {} })),
    edges: edges.map(([source, target, sourceHandle]) => ({
      id: `${source}->${target}${sourceHandle ? `:${sourceHandle}` : ''}`,
      source,
      target,
      ...(sourceHandle ? { sourceHandle } : {}),
    })),
  };
}

export interface AutomationFlows {
  /** A new automation of the tenant with the graph, published (version 1). */
  publish(tenant: AutomationTenant, graph: FlowGraph): Promise<Automation>;
  /** `POST …/trigger` with a key (fresh when absent). */
  trigger(tenant: AutomationTenant, automationId: string, body?: Record<string, unknown>, key?: string): Promise<Answer<TriggerResult>>;
  /** Publishes and triggers on the tenant's first repository: the run's id. */
  start(tenant: AutomationTenant, graph: FlowGraph, input?: Record<string, unknown>): Promise<{ automationId: string; runId: string }>;
  detail(tenant: AutomationTenant, automationId: string, runId: string): Promise<AutomationRunDetail>;
  list(tenant: AutomationTenant, automationId: string, query?: string): Promise<AutomationRunSummary[]>;
  /** Waits until the run's detail passes `check`. */
  until(
    tenant: AutomationTenant,
    automationId: string,
    runId: string,
    what: string,
    check: (run: AutomationRunDetail) => boolean,
  ): Promise<AutomationRunDetail>;
  /** Waits until the node started its agent run: its id. */
  agentRunOf(tenant: AutomationTenant, automationId: string, runId: string, nodeId: string): Promise<string>;
  /** Ends an agent run as the sandboxes would: its last message (an `assistant_message` event), then its finish (with the tokens it spent, if given). */
  finishAgentRun(agentRunId: string, status: 'success' | 'failed' | 'cancelled', lastMessage?: string, usage?: RunUsage): Promise<void>;
}

export function automationFlows(h: AutomationsHarness): AutomationFlows {
  const runsHarness = () => {
    if (!h.runs) throw new Error('start the harness with { runs: true } to run automations');
    return h.runs;
  };
  const flows: AutomationFlows = {
    async publish(tenant, graph) {
      const created = await h.automations<{ automation: Automation }>(tenant.userId, 'POST', '', {
        installationId: tenant.installationId,
        graph,
        publish: true,
      });
      if (created.status !== 201) throw new Error(`publishing failed: ${created.status} ${created.text}`);
      return created.data.automation;
    },
    trigger: (tenant, automationId, body = { repoId: tenant.repoIds[0] }, key = randomUUID()) =>
      h.call<TriggerResult>('POST', `/internal/users/${encodeURIComponent(tenant.userId)}/automations/${automationId}/trigger`, body, {
        'x-internal-token': h.token,
        'idempotency-key': key,
      }),
    async start(tenant, graph, input) {
      const automation = await flows.publish(tenant, graph);
      const triggered = await flows.trigger(tenant, automation.id, { repoId: tenant.repoIds[0], ...(input ? { input } : {}) });
      if (triggered.status !== 202 || !triggered.data.run.jobRunId) throw new Error(`trigger failed: ${triggered.status} ${triggered.text}`);
      return { automationId: automation.id, runId: triggered.data.run.jobRunId };
    },
    async detail(tenant, automationId, runId) {
      const answer = await h.automations<{ run: AutomationRunDetail | null }>(tenant.userId, 'GET', `/${automationId}/runs/${runId}`);
      if (answer.status !== 200 || !answer.data.run) throw new Error(`reading the run failed: ${answer.status} ${answer.text}`);
      return answer.data.run;
    },
    async list(tenant, automationId, query = '') {
      return (await h.automations<{ runs: AutomationRunSummary[] }>(tenant.userId, 'GET', `/${automationId}/runs${query}`)).data.runs;
    },
    async until(tenant, automationId, runId, what, check) {
      let last: AutomationRunDetail | undefined;
      return waitFor(
        () => `${what} (last seen: ${last ? `${last.status}, ${last.nodeRuns.map((n) => `${n.nodeId}=${n.status}`).join(' ')}` : 'nothing'})`,
        async () => {
          last = await flows.detail(tenant, automationId, runId);
          return check(last) ? last : undefined;
        },
      );
    },
    async agentRunOf(tenant, automationId, runId, nodeId) {
      const run = await flows.until(tenant, automationId, runId, `node ${nodeId}'s agent run`, (detail) =>
        detail.nodeRuns.some((nodeRun) => nodeRun.nodeId === nodeId && nodeRun.agentRunId !== null),
      );
      return run.nodeRuns.find((nodeRun) => nodeRun.nodeId === nodeId)?.agentRunId as string;
    },
    async finishAgentRun(agentRunId, status, lastMessage, usage) {
      const runs = runsHarness();
      if (lastMessage !== undefined) await runs.event(agentRunId, 0, { eventType: 'assistant_message', toolName: null, message: lastMessage });
      await runs.finish(agentRunId, {
        status,
        error: status === 'failed' ? 'the agent gave up' : null,
        failure: status === 'failed' ? 'agent' : null,
        eventCount: lastMessage === undefined ? 0 : 1,
        ...(usage ? { usage } : {}),
      });
    },
  };
  return flows;
}
