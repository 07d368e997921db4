import { dispatchEventsOf } from './dispatchEvents.js';
import { newRunRecords, type NodeRun, type RunRecords } from './run/index.js';

const AT = '2026-11-25T10:00:00.000Z';
const before = (): RunRecords => newRunRecords({ id: 'run-1', repoId: 'repo-1', input: {} });
const nodeRun = (nodeId: string, status: NodeRun['status'], extra: Partial<NodeRun> = {}): NodeRun => ({
  nodeId,
  status,
  attempt: 1,
  input: null,
  output: null,
  ...extra,
});

function after(records: RunRecords, change: (next: RunRecords) => void): RunRecords {
  const next = JSON.parse(JSON.stringify(records)) as RunRecords;
  change(next);
  return next;
}

describe('a transition shows its readers what changed, in order: events received, node changes, the run’s own change', () => {
  test('a trigger that runs start and starts an agent: node.success, node.running, run.running, numbered from firstSeq', () => {
    const next = after(before(), (records) => {
      records.run.status = 'running';
      records.nodeRuns.start = nodeRun('start', 'success');
      records.nodeRuns.fix = nodeRun('fix', 'running');
    });
    expect(dispatchEventsOf(before(), next, AT, 4)).toEqual([
      { id: 'run-1:dispatch:4', seq: 4, type: 'node.success', nodeId: 'start', message: 'node "start" success', at: AT },
      { id: 'run-1:dispatch:5', seq: 5, type: 'node.running', nodeId: 'fix', message: 'node "fix" running', at: AT },
      { id: 'run-1:dispatch:6', seq: 6, type: 'run.running', nodeId: null, message: 'run running', at: AT },
    ]);
  });

  test('an agent run confirmed is agent_run.started; a received event comes first', () => {
    const running = after(before(), (records) => {
      records.run.status = 'running';
      records.nodeRuns.fix = nodeRun('fix', 'running');
    });
    const next = after(running, (records) => {
      (records.nodeRuns.fix as NodeRun).agentRunId = 'agent-run-9';
      records.inbox.push({ id: 'event-1', name: 'approved', data: null, receivedAt: AT });
    });
    expect(dispatchEventsOf(running, next, AT, 0).map((event) => [event.type, event.message])).toEqual([
      ['event.received', 'event "approved" received'],
      ['agent_run.started', 'agent run agent-run-9 started for node "fix"'],
    ]);
  });

  test('nothing changed: no dispatch events', () => {
    expect(dispatchEventsOf(before(), before(), AT, 0)).toEqual([]);
  });
});

describe('dispatch messages are sanitized and capped like run.error (they reach the automations.dispatch topic)', () => {
  test('a node error quoting a token is redacted; a long one is capped', () => {
    const token = 'ghp_0123456789abcdefghijABCDEFGHIJ0123456789';
    const next = after(before(), (records) => {
      records.run.status = 'failed';
      records.run.error = `node "check" failed: expression read ${token}`;
      records.nodeRuns.check = nodeRun('check', 'failed', { error: `expression read ${token} ${'x'.repeat(5_000)}` });
    });
    const events = dispatchEventsOf(before(), next, AT, 0);
    expect(events.map((event) => event.type)).toEqual(['node.failed', 'run.failed']);
    for (const event of events) {
      expect(event.message).not.toContain(token);
      expect(event.message).toContain('[REDACTED]');
      expect(event.message.length).toBeLessThanOrEqual(2_100);
    }
  });
});
