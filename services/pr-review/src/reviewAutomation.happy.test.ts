// The built-in review automation against the real automations engine (with runs in-process): it
// publishes as it is, accepts an attempt's input, and its agent run gets the rendered review prompt
// from the pull request's head branch.
import { randomUUID } from 'node:crypto';
import { startAutomationsHarness, type AutomationsHarness, type AutomationTenant } from '@ars/automations-engine/testing';
import type { BusMessage, RunRequestedData } from '@ars/bus';
import { waitFor } from '@ars/testenv';
import { reviewAutomationGraph, reviewInput, REVIEW_AUTOMATION_NAME } from './domain/reviewTemplate.js';

let h: AutomationsHarness;
let tenant: AutomationTenant;
let requested: Map<string, BusMessage<RunRequestedData>>;
beforeAll(async () => {
  h = await startAutomationsHarness({ runs: true });
  tenant = await h.newTenant();
  requested = (await h.runs?.watchRequested()) ?? new Map();
});
afterAll(async () => {
  await h?.stop();
});

describe('the review automation publishes as created and renders an attempt’s input into its agent’s prompt', () => {
  test('create with publish: version 1; a trigger with the input and the head branch starts one agent run from it', async () => {
    const created = await h.automations<{ automation: { id: string; publishedVersion: { versionNumber: number } | null } }>(tenant.userId, 'POST', '', {
      installationId: tenant.installationId,
      name: REVIEW_AUTOMATION_NAME,
      graph: reviewAutomationGraph(tenant.agentId),
      publish: true,
    });
    expect([created.status, created.data.automation.publishedVersion?.versionNumber]).toEqual([201, 1]);
    const input = reviewInput(
      { prNumber: 12, title: 'Add login', headRef: 'feature/login', headSha: 'c'.repeat(40), baseRef: 'main', baseSha: 'd'.repeat(40) },
      '--- a/app.js\n+++ b/app.js\n@@ -1 +1 @@\n-old\n+new',
      'Look for logged secrets.',
    );
    const triggered = await h.call<{ run: { jobRunId: string } }>(
      'POST',
      `/internal/users/${encodeURIComponent(tenant.userId)}/automations/${created.data.automation.id}/trigger`,
      { repoId: tenant.repoIds[0], input, baseBranch: 'feature/login' },
      { 'x-internal-token': h.token, 'idempotency-key': randomUUID() },
    );
    expect(triggered.status).toBe(202);
    const runId = triggered.data.run.jobRunId;
    const agentRunId = await waitFor('the review agent run', async () => {
      const detail = await h.automations<{ run: { nodeRuns: { nodeId: string; agentRunId: string | null }[] } }>(
        tenant.userId,
        'GET',
        `/${created.data.automation.id}/runs/${runId}`,
      );
      return detail.data.run.nodeRuns.find((node) => node.nodeId === 'review')?.agentRunId ?? undefined;
    });
    const request = await waitFor('runs.requested of the review', () => requested.get(agentRunId)?.data);
    expect(request.branch.base).toBe('feature/login');
    expect(request.prompt).toContain('Review pull request #12 "Add login": feature/login (cccccccccc');
    expect(request.prompt).toContain('Look for logged secrets.');
    expect(request.prompt).toContain('+new');
    expect(request.prompt).toContain('The diff:');
    expect(request.prompt).toContain('```ars-findings');
  });
});
