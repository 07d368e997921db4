// @ars/client against the whole stack (gateway, runs, sandboxes with the stand-in harness, catalog,
// automations-engine, mcp-registry): every method group answers the contract's data, runs.wait()
// and runs.follow() see every event of a run once, and failures are ArsApiErrors.
import { ArsApiError, ArsClient, type FollowItem, type RunEvent } from '@ars/client';
import { createAccount, createToken, type Account } from '../support/accounts.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();

/** A new user (its own run-start budget) and a client holding one of its read+write PATs. */
async function newUser(): Promise<{ ars: ArsClient; account: Account; repoId: string }> {
  const account = await createAccount(system().baseUrl);
  const { token } = await createToken(system().baseUrl, account, { name: 'ts-client' });
  return { ars: new ArsClient({ baseUrl: system().baseUrl, token }), account, repoId: account.repos[0]?.id ?? '' };
}

const ids = (events: RunEvent[]) => events.map((event) => event.id);

describe('the read routes answer the contract’s data', () => {
  test('repos.list, sandboxes.list and mcpServers.list', async () => {
    const { ars, account } = await newUser();
    const { repos } = await ars.repos.list({ limit: 200 });
    expect(repos.map((repo) => repo.id).sort()).toEqual(account.repos.map((repo) => repo.id).sort());
    expect(repos[0]).toEqual(expect.objectContaining({ full_name: account.repos[0]?.full_name, installation_id: account.installationId }));
    expect(await ars.sandboxes.list({ repoId: account.repos[0]?.id })).toEqual({ sandboxes: [] });
    // A dev account is seeded with two tool servers.
    const { servers } = await ars.mcpServers.list();
    expect(servers.map((server) => server.name).sort()).toEqual(['docs-search', 'github']);
    expect(servers.every((server) => server.enabled && typeof server.config === 'object')).toBe(true);
  });

  test('automations.listAll follows nextCursor through every page', async () => {
    const { ars, account } = await newUser();
    const created: string[] = [];
    for (const name of ['first', 'second', 'third'])
      created.push((await ars.automations.create({ installationId: account.installationId, name })).automation.id);
    const listed: string[] = [];
    for await (const summary of ars.automations.listAll({ limit: 2 })) listed.push(summary.id);
    expect(listed.sort()).toEqual(created.sort());
  });
});

describe('runs: start (replayed on the same key), wait, follow, cancel', () => {
  test('runs.start with a key twice is one run, the second replayed; runs.wait() yields every event once and ends in success', async () => {
    const { ars, repoId } = await newUser();
    const body = { repoId, prompt: '@say hello\n@say from the client' };
    const first = await ars.runs.start(body, { idempotencyKey: 'ts-client-start' });
    const again = await ars.runs.start(body, { idempotencyKey: 'ts-client-start' });
    expect(first.replayed).toBe(false);
    expect(again).toMatchObject({ runId: first.runId, replayed: true });

    const seen: RunEvent[] = [];
    const waited = await ars.runs.wait(first.runId, { intervalMs: 300, timeoutMs: 60_000, onEvent: (event) => seen.push(event) });
    expect(waited.run).toMatchObject({ status: 'success' });
    expect(ids(seen)).toEqual(ids(waited.events));
    expect(new Set(ids(seen)).size).toBe(seen.length);
    expect(waited.events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['hello', 'from the client']);
    // Exactly the run's events, as one read of them all gives them.
    expect(ids(waited.events)).toEqual(ids((await ars.runs.events(first.runId, { limit: 200 })).events));
  }, 90_000);

  test('runs.follow() yields the events of a live run once, in order, and ends once it is terminal', async () => {
    const { ars, repoId } = await newUser();
    const { runId } = await ars.runs.start({ repoId, prompt: '@say one\n@sleep 500\n@say two' });
    const items: FollowItem[] = [];
    for await (const item of ars.runs.follow(runId)) items.push(item);
    const events = items.flatMap((item) => (item.type === 'event' ? [item.event] : []));
    const statuses = items.flatMap((item) => (item.type === 'run' ? [item.run.status] : []));
    expect(statuses.at(-1)).toBe('success');
    expect(events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['one', 'two']);
    expect(ids(events)).toEqual(ids((await ars.runs.events(runId, { limit: 200 })).events));
  }, 90_000);

  test('runs.cancel of a sleeping run asks for the cancellation; wait() then ends in cancelled', async () => {
    const { ars, repoId } = await newUser();
    const { runId } = await ars.runs.start({ repoId, prompt: '@sleep 30000\n@say too late' });
    const answer = await ars.runs.cancel(runId);
    expect(answer.run.runId).toBe(runId);
    expect(answer.status).toBe('cancellation_requested');
    const waited = await ars.runs.wait(runId, { intervalMs: 300, timeoutMs: 60_000 });
    expect(waited.run.status).toBe('cancelled');
    expect(waited.events.some((e) => e.message === 'too late')).toBe(false);
  }, 90_000);
});

describe('failures are ArsApiErrors with the envelope’s code and the request id', () => {
  test('an unknown run is NOT_FOUND, 404, with the X-Request-Id of the answer', async () => {
    const { ars } = await newUser();
    const error = await ars.runs.get('no-such-run').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArsApiError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((error as ArsApiError).requestId).toMatch(/\S/);
  });
});
