import type { Automation } from '../domain/automationView.js';
import { publishableGraph, startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

describe('POST /automations/{id}/publish: a new immutable version with versionNumber + 1', () => {
  test('publish, change the draft, publish again: versions 1 then 2; version 1 stays as it was', async () => {
    const tenant = await harness.newTenant();
    const first = publishableGraph(tenant.agentId);
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId, graph: first });
    const { id } = created.data.automation;

    const one = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', `/${id}/publish`);
    expect(one.status).toBe(200);
    expect(one.data.automation.publishedVersion).toEqual({ id: expect.any(String), versionNumber: 1, graph: first, createdAt: expect.any(String) });
    expect(one.data.automation.draftGraph).toEqual(first);

    const second = publishableGraph(tenant.agentId, { prompt: 'Now write the changelog.' });
    await harness.automations(tenant.userId, 'PUT', `/${id}`, { graph: second });
    const two = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', `/${id}/publish`);
    expect(two.data.automation.publishedVersion).toMatchObject({ versionNumber: 2, graph: second });
    expect(two.data.automation.publishedVersion?.id).not.toBe(one.data.automation.publishedVersion?.id);

    const summaries = await harness.automations<{ automations: { publishedVersionId: string }[] }>(tenant.userId, 'GET');
    expect(summaries.data.automations[0]?.publishedVersionId).toBe(two.data.automation.publishedVersion?.id);
    const versions = await harness.db
      .collection<{ versionNumber: number; graphJson: string }>('automation_versions')
      .find({ automationId: id })
      .sort({ versionNumber: 1 })
      .toArray();
    expect(versions.map((version) => [version.versionNumber, JSON.parse(version.graphJson) as unknown])).toEqual([
      [1, first],
      [2, second],
    ]);
  });

  test('an explicit modelId among the caller’s models publishes', async () => {
    const tenant = await harness.newTenant();
    const graph = publishableGraph(tenant.agentId, { modelId: tenant.modelId });
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId, graph });
    const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', `/${created.data.automation.id}/publish`);
    expect(answer.data.automation.publishedVersion).toMatchObject({ versionNumber: 1, graph });
  });
});

describe('concurrent publishes: each version number once, and the highest one stays published', () => {
  test('eight publishes at once: distinct numbers 1…n, no answer other than 200 or 409, publishedVersion the highest', async () => {
    const tenant = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', {
      installationId: tenant.installationId,
      graph: publishableGraph(tenant.agentId),
    });
    const { id } = created.data.automation;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => harness.automations<{ automation: Automation }>(tenant.userId, 'POST', `/${id}/publish`)),
    );
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    const numbers = (await harness.db.collection<{ versionNumber: number }>('automation_versions').find({ automationId: id }).toArray())
      .map((version) => version.versionNumber)
      .sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, index) => index + 1));
    expect(numbers.length).toBeGreaterThanOrEqual(answers.filter((answer) => answer.status === 200).length);
    const read = await harness.automations<{ automation: Automation }>(tenant.userId, 'GET', `/${id}`);
    expect(read.data.automation.publishedVersion?.versionNumber).toBe(numbers[numbers.length - 1]);
  });
});
