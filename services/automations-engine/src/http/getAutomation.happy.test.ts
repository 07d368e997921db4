import type { Automation } from '../domain/automationView.js';
import type { AutomationRunDoc } from '../store/collections.js';
import { startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

describe('GET /automations/{id}: the full automation with a runSummary that is true at all times', () => {
  test('zeros and nulls without runs; then the latest run, running (with waiting), pending and failed in the last 24 h', async () => {
    const tenant = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    const { id } = created.data.automation;
    expect(created.data.automation.runSummary).toEqual({ lastRunId: null, lastRunStatus: null, runningCount: 0, pendingCount: 0, failed24h: 0 });

    const now = Date.now();
    // Only the fields runSummary reads, and the trigger key the unique index needs (the engine writes the rest).
    type SummaryFields = Pick<AutomationRunDoc, '_id' | 'automationId' | 'userId' | 'status' | 'createdAt' | 'finishedAt' | 'trigger'>;
    const run = (runId: string, status: AutomationRunDoc['status'], ageMs: number, finished: boolean): SummaryFields => ({
      _id: runId,
      automationId: id,
      userId: tenant.userId,
      status,
      createdAt: new Date(now - ageMs),
      finishedAt: finished ? new Date(now - ageMs + 1000) : null,
      trigger: { idempotencyKey: `key-${runId}`, requestHash: 'unused' },
    });
    await harness.db
      .collection<SummaryFields>('automation_runs')
      .insertMany([
        run('old-failure', 'failed', 30 * 3600_000, true),
        run('recent-failure', 'failed', 3600_000, true),
        run('done', 'success', 1800_000, true),
        run('running', 'running', 600_000, false),
        run('waiting', 'waiting', 300_000, false),
        run('newest', 'pending', 1000, false),
        { ...run('someone-else', 'pending', 0, false), automationId: 'another-automation' },
      ]);

    const read = await harness.automations<{ automation: Automation }>(tenant.userId, 'GET', `/${id}`);
    expect(read.data.automation.runSummary).toEqual({ lastRunId: 'newest', lastRunStatus: 'pending', runningCount: 2, pendingCount: 1, failed24h: 1 });
  });
});
