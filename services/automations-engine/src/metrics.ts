// The engine's own metrics (beside the kit's HTTP and bus ones): automation runs by the status they
// reached, their duration, and node runs by node type and status. Counted from the transitions the
// engine wrote (each one once: only a write that won its compare-and-set counts). Labels are closed
// sets: statuses and the node types of the graph schema, never ids or names.
import { counter, histogram, secondsSince, RUN_DURATION_BUCKETS } from '@ars/metrics';
import { isTerminal, type AutomationRunStatus, type RunRecords } from './domain/run/index.js';

const runs = () =>
  counter({
    name: 'ars_automation_runs_total',
    help: 'Automation runs that reached a status (pending at the trigger, then running, waiting, success, failed, cancelled), by status; each run once per status it reached.',
    labelNames: ['status'],
  });
const durations = () =>
  histogram({
    name: 'ars_automation_run_duration_seconds',
    help: 'Time from an automation run being triggered to its terminal status, by status.',
    labelNames: ['status'],
    buckets: RUN_DURATION_BUCKETS,
  });
const nodeRuns = () =>
  counter({
    name: 'ars_automation_node_runs_total',
    help: 'Node runs that reached a status, by node type and status (running, waiting, success, failed, cancelled, skipped).',
    labelNames: ['node_type', 'status'],
  });

/** A run was triggered (written with its first status). */
export function recordAutomationRunCreated(status: AutomationRunStatus): void {
  runs().inc({ status });
}

/** One written transition: the run's status change and each node run's. `types`: the version's node types by id. */
export function recordAutomationTransition(before: RunRecords, after: RunRecords, types: ReadonlyMap<string, string>, createdAt: Date): void {
  const status = after.run.status;
  if (before.run.status !== status) {
    runs().inc({ status });
    if (isTerminal(status)) durations().observe({ status }, secondsSince(createdAt));
  }
  for (const nodeRun of Object.values(after.nodeRuns)) {
    if (before.nodeRuns[nodeRun.nodeId]?.status === nodeRun.status) continue;
    nodeRuns().inc({ node_type: types.get(nodeRun.nodeId) ?? 'unknown', status: nodeRun.status });
  }
}
