import type { AutomationSummary } from '../domain/automationView.js';
import { publishableGraph, startAutomationsHarness, type AutomationsHarness, type AutomationTenant } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

type Page = { automations: AutomationSummary[]; nextCursor: string | null };

async function create(tenant: AutomationTenant, name: string): Promise<string> {
  const answer = await harness.automations<{ automation: { id: string } }>(tenant.userId, 'POST', '', {
    installationId: tenant.installationId,
    name,
    graph: publishableGraph(tenant.agentId),
  });
  return answer.data.automation.id;
}

describe('GET /automations: only the caller’s, newest first; summaries never contain graphs', () => {
  test('three automations come back newest first, each the contract’s summary fields exactly', async () => {
    const tenant = await harness.newTenant();
    const other = await harness.newTenant();
    const ids = [];
    for (const name of ['first', 'second', 'third']) ids.push(await create(tenant, name));
    await create(other, 'not yours');
    const page = (await harness.automations<Page>(tenant.userId, 'GET')).data;
    expect(page.automations.map((summary) => summary.id)).toEqual([...ids].reverse());
    expect(page.nextCursor).toBeNull();
    expect(page.automations[0]).toEqual({
      id: ids[2],
      installationId: tenant.installationId,
      name: 'third',
      description: null,
      status: 'active',
      publishedVersionId: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });
});

describe('GET /automations: limit 1–100, default 50, clamped; opaque cursor/nextCursor', () => {
  test('pages of 2 walk all five, newest first, with no repeats; the last page has nextCursor null', async () => {
    const tenant = await harness.newTenant();
    const ids = [];
    for (let i = 0; i < 5; i += 1) ids.push(await create(tenant, `automation ${i}`));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
      const page: Page = (await harness.automations<Page>(tenant.userId, 'GET', query)).data;
      expect(page.automations.length).toBeLessThanOrEqual(2);
      seen.push(...page.automations.map((summary) => summary.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  test('limit 0 is clamped to 1 and limit 1000 to 100', async () => {
    const tenant = await harness.newTenant();
    for (let i = 0; i < 2; i += 1) await create(tenant, `automation ${i}`);
    const one = (await harness.automations<Page>(tenant.userId, 'GET', '?limit=0')).data;
    expect(one.automations).toHaveLength(1);
    expect(one.nextCursor).toEqual(expect.any(String));
    const all = (await harness.automations<Page>(tenant.userId, 'GET', '?limit=1000')).data;
    expect(all.automations).toHaveLength(2);
    expect(all.nextCursor).toBeNull();
  });
});
