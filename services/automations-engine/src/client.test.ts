// The automations engine's client against its real routes (the engine and runs in-process).
import { randomUUID } from 'node:crypto';
import type { BusMessage, RunRequestedData } from '@ars/bus';
import type { ReviewFinding } from '@ars/contract';
import { AppError } from '@ars/errors';
import { createHttpClient, type HttpClient } from '@ars/http-client';
import { createLogger } from '@ars/logger';
import { waitFor } from '@ars/testenv';
import { createAutomationsClient, type AutomationsClient } from './client.js';
import { graphOf } from './testing/automationFlows.js';
import { startAutomationsHarness, type AutomationsHarness, type AutomationTenant } from './testing/index.js';

let h: AutomationsHarness;
let http: HttpClient;
let client: AutomationsClient;
let tenant: AutomationTenant;
let requested: Map<string, BusMessage<RunRequestedData>>;
beforeAll(async () => {
  h = await startAutomationsHarness({ runs: true });
  http = createHttpClient({
    baseUrl: h.url,
    caller: 'pr-review',
    internalToken: h.token,
    logger: createLogger({ service: 'client-test', level: 'silent' }),
    peer: 'automations-engine',
  });
  client = createAutomationsClient(http);
  tenant = await h.newTenant();
  requested = (await h.runs?.watchRequested()) ?? new Map();
});
afterAll(async () => {
  await http?.close();
  await h?.stop();
});

const reviewGraph = () =>
  graphOf(
    [
      ['start', 'start'],
      ['review', 'agent', { agentId: tenant.agentId, prompt: 'Review pull request #{{ input.prNumber }}.' }],
      ['end', 'end'],
    ],
    [
      ['start', 'review'],
      ['review', 'end'],
    ],
  );

async function agentRunOf(automationId: string, runId: string): Promise<string> {
  return waitFor(
    'the review node’s agent run',
    async () => (await client.getRun(tenant.userId, automationId, runId))?.nodeRuns.find((node) => node.nodeId === 'review')?.agentRunId ?? undefined,
  );
}

describe('the client creates, reads and triggers through the real routes', () => {
  test('createAutomation with publish, getAutomation, trigger (the same key replays), getRun', async () => {
    const created = await client.createAutomation(tenant.userId, {
      installationId: tenant.installationId,
      name: 'PR review',
      graph: reviewGraph(),
      publish: true,
    });
    expect(created.publishedVersion?.versionNumber).toBe(1);
    expect((await client.getAutomation(tenant.userId, created.id)).name).toBe('PR review');
    const key = randomUUID();
    const first = await client.trigger(tenant.userId, created.id, { repoId: tenant.repoIds[0] ?? '', input: { prNumber: 7 } }, key);
    expect(first).toMatchObject({ automationId: created.id, outcome: 'started', started: true });
    const again = await client.trigger(tenant.userId, created.id, { repoId: tenant.repoIds[0] ?? '', input: { prNumber: 7 } }, key);
    expect(again).toMatchObject({ jobRunId: first.jobRunId, outcome: 'replayed' });
    const run = await client.getRun(tenant.userId, created.id, first.jobRunId ?? '');
    expect(run).toMatchObject({ id: first.jobRunId, input: { prNumber: 7 }, baseBranch: null });
    expect(await client.getRun(tenant.userId, created.id, 'no-such-run')).toBeNull();
  });

  test('another user’s automation is AppError NOT_FOUND', async () => {
    const created = await client.createAutomation(tenant.userId, { installationId: tenant.installationId });
    const other = await h.newTenant();
    const refused = await client.getAutomation(other.userId, created.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'NOT_FOUND', message: 'Automation not found' });
  });
});

describe('baseBranch (addition): the run’s agent runs start from it, each on its own working branch; an invalid name is 400', () => {
  test('a trigger with baseBranch feature/login: the agent run’s base is that branch and its working branch another', async () => {
    const created = await client.createAutomation(tenant.userId, { installationId: tenant.installationId, graph: reviewGraph(), publish: true });
    const triggered = await client.trigger(
      tenant.userId,
      created.id,
      { repoId: tenant.repoIds[0] ?? '', input: { prNumber: 8 }, baseBranch: 'feature/login' },
      randomUUID(),
    );
    const agentRunId = await agentRunOf(created.id, triggered.jobRunId ?? '');
    const request = await waitFor(`runs.requested of ${agentRunId}`, () => requested.get(agentRunId)?.data);
    expect(request.branch.base).toBe('feature/login');
    expect(request.branch.working).not.toBe('feature/login');
    expect((await client.getRun(tenant.userId, created.id, triggered.jobRunId ?? ''))?.baseBranch).toBe('feature/login');
  });

  test('baseBranch "bad..name" is BAD_REQUEST naming baseBranch, and makes no run', async () => {
    const created = await client.createAutomation(tenant.userId, { installationId: tenant.installationId, graph: reviewGraph(), publish: true });
    const refused = await client
      .trigger(tenant.userId, created.id, { repoId: tenant.repoIds[0] ?? '', baseBranch: 'bad..name' }, randomUUID())
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^baseBranch /) });
    expect((await h.automations<{ runs: unknown[] }>(tenant.userId, 'GET', `/${created.id}/runs`)).data.runs).toEqual([]);
  });
});

describe('review findings: pr-review hands over an attempt’s findings; the run detail shows them, sanitized', () => {
  const finding = (overrides: Partial<ReviewFinding> = {}): ReviewFinding => ({
    fingerprint: 'f1',
    state: 'new',
    severity: 'high',
    path: 'src/login.ts',
    line: 12,
    title: 'Token logged',
    message: 'The token ghp_0123456789abcdefghijABCDEFGHIJ0123456789 is written to the log.',
    ...overrides,
  });

  test('setReviewFindings replaces the run’s findings; a secret in a message is redacted in the detail', async () => {
    const created = await client.createAutomation(tenant.userId, { installationId: tenant.installationId, graph: reviewGraph(), publish: true });
    const { jobRunId } = await client.trigger(tenant.userId, created.id, { repoId: tenant.repoIds[0] ?? '' }, randomUUID());
    const runId = jobRunId ?? '';
    await client.setReviewFindings(tenant.userId, created.id, runId, [finding(), finding({ fingerprint: 'f2', state: 'fixed', line: null, severity: 'low' })]);
    const replaced = await client.setReviewFindings(tenant.userId, created.id, runId, [finding({ state: 'persisting' })]);
    expect(replaced.reviewFindings).toEqual([expect.objectContaining({ fingerprint: 'f1', state: 'persisting', line: 12 })]);
    const detail = await client.getRun(tenant.userId, created.id, runId);
    expect(detail?.reviewFindings).toHaveLength(1);
    expect(detail?.reviewFindings[0]?.message).not.toContain('ghp_0123456789abcdefghij');
    expect(detail?.reviewFindings[0]?.message).toContain('[REDACTED]');
  });

  test('a finding with an unknown state is BAD_REQUEST naming its path; the run’s findings are unchanged', async () => {
    const created = await client.createAutomation(tenant.userId, { installationId: tenant.installationId, graph: reviewGraph(), publish: true });
    const { jobRunId } = await client.trigger(tenant.userId, created.id, { repoId: tenant.repoIds[0] ?? '' }, randomUUID());
    const runId = jobRunId ?? '';
    await client.setReviewFindings(tenant.userId, created.id, runId, [finding()]);
    const refused = await client
      .setReviewFindings(tenant.userId, created.id, runId, [finding({ state: 'open' as ReviewFinding['state'] })])
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('findings[0].state') });
    expect((await client.getRun(tenant.userId, created.id, runId))?.reviewFindings.map((f) => f.state)).toEqual(['new']);
  });
});

describe('hold (addition): a trigger may create its run without starting it; release starts it, once', () => {
  test('held: pending, started false, no agent run even past a sweep; release starts its agent; a second release changes nothing', async () => {
    const created = await client.createAutomation(tenant.userId, { installationId: tenant.installationId, graph: reviewGraph(), publish: true });
    const held = await client.trigger(tenant.userId, created.id, { repoId: tenant.repoIds[0] ?? '', input: { prNumber: 9 }, hold: true }, randomUUID());
    expect(held).toMatchObject({ outcome: 'started', started: false, status: 'pending', reason: 'held until released' });
    const runId = held.jobRunId ?? '';
    // An event reaches the held run (it is live) and so gives it a check time: the sweeper looks at it
    // (it moves the check time on after looking) and must leave it held.
    expect((await h.automations<{ deliveredTo: number }>(tenant.userId, 'POST', '/events', { name: 'anything' })).data.deliveredTo).toBeGreaterThanOrEqual(1);
    const checkAt = async () => (await h.db.collection<{ _id: string; checkAt: Date | null }>('automation_runs').findOne({ _id: runId }))?.checkAt ?? null;
    const first = await checkAt();
    expect(first).not.toBeNull();
    await waitFor('the sweeper looked at the held run', async () => ((await checkAt())?.getTime() ?? 0) > (first?.getTime() ?? 0) || undefined);
    expect((await client.getRun(tenant.userId, created.id, runId))?.status).toBe('pending');
    expect((await client.getRun(tenant.userId, created.id, runId))?.nodeRuns).toEqual([]);
    const released = await client.releaseRun(tenant.userId, created.id, runId);
    expect(released.status).toBe('running');
    await agentRunOf(created.id, runId);
    const again = await client.releaseRun(tenant.userId, created.id, runId);
    expect(again.agent.agentRuns).toBe(1);
  });

  test('a held run can be cancelled; releasing it afterwards starts nothing', async () => {
    const created = await client.createAutomation(tenant.userId, { installationId: tenant.installationId, graph: reviewGraph(), publish: true });
    const held = await client.trigger(tenant.userId, created.id, { repoId: tenant.repoIds[0] ?? '', hold: true }, randomUUID());
    const runId = held.jobRunId ?? '';
    expect((await h.automations(tenant.userId, 'POST', `/${created.id}/runs/${runId}/cancel`)).status).toBe(200);
    const released = await client.releaseRun(tenant.userId, created.id, runId);
    expect([released.status, released.nodeRuns]).toEqual(['cancelled', []]);
  });
});
