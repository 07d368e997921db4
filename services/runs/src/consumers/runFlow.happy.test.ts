import { metricsText, parseMetricsText, sumOf } from '@ars/metrics';
import { agentEventMessage, startRunsHarness, type RunsHarness, type Tenant } from '../testing/runsHarness.js';

let h: RunsHarness;
beforeAll(async () => {
  h = await startRunsHarness();
});
afterAll(async () => {
  await h.stop();
});

async function newRun(tenant?: Tenant): Promise<{ userId: string; runId: string }> {
  const { userId, repoId } = tenant ?? (await h.newTenant());
  const run = (await h.start(userId, { repoId, prompt: 'do it' })).data;
  return { userId, runId: run.runId };
}

describe('run.sandbox-allocated sets sandboxRecordId, sandboxId and runtime', () => {
  test('the run names its sandbox record, provider sandbox and runtime session; status stays pending', async () => {
    const { userId, runId } = await newRun();
    await h.allocate(runId, 'record-1');
    const run = await h.waitFor('allocation', async () => {
      const current = await h.getRun(userId, runId);
      return current.sandboxRecordId ? current : undefined;
    });
    expect(run).toMatchObject({
      sandboxRecordId: 'record-1',
      sandboxId: 'local-record-1',
      runtime: { provider: 'local', runId: `session-${runId}` },
      status: 'pending',
    });
    expect(Date.parse(run.updatedAt)).toBeGreaterThanOrEqual(Date.parse(run.createdAt));
  });
});

describe('the first agent event moves pending to streaming; the sandbox’s finish sets the terminal status', () => {
  test('pending → streaming → success, error null', async () => {
    const { userId, runId } = await newRun();
    await h.allocate(runId);
    await h.event(runId, 0, { eventType: 'stream_started', message: 'started', payload: {} });
    await h.waitFor('streaming', async () => (await h.getRun(userId, runId)).status === 'streaming');
    await h.event(runId, 1, { toolName: 'shell', payload: { command: 'ls' } });
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 2 });
    const run = await h.waitFor('success', async () => {
      const current = await h.getRun(userId, runId);
      return current.status === 'success' ? current : undefined;
    });
    expect(run.error).toBeNull();
    expect((await h.events(userId, runId)).events.map((e) => e.type)).toEqual(['stream_started', 'tool_call']);
  });

  test('failed carries the sandbox’s error', async () => {
    const { userId, runId } = await newRun();
    await h.allocate(runId);
    await h.event(runId, 0);
    await h.finish(runId, { status: 'failed', error: 'the harness ran longer than 1800 s', failure: 'harness_timeout', eventCount: 1 });
    const run = await h.waitFor('failed', async () => {
      const current = await h.getRun(userId, runId);
      return current.status === 'failed' ? current : undefined;
    });
    expect(run.error).toBe('the harness ran longer than 1800 s');
  });

  test('a run that fails before any event goes from pending straight to failed', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, { status: 'failed', error: 'could not clone the repository', failure: 'sandbox_allocation', eventCount: 0 });
    const run = await h.waitFor('failed', async () => {
      const current = await h.getRun(userId, runId);
      return current.status === 'failed' ? current : undefined;
    });
    expect(run).toMatchObject({ error: 'could not clone the repository', sandboxRecordId: null });
  });

  test('cancelled: error null', async () => {
    const { userId, runId } = await newRun();
    await h.event(runId, 0);
    await h.finish(runId, { status: 'cancelled', error: null, failure: null, eventCount: 1 });
    const run = await h.waitFor('cancelled', async () => {
      const current = await h.getRun(userId, runId);
      return current.status === 'cancelled' ? current : undefined;
    });
    expect(run.error).toBeNull();
  });
});

describe('the internal view names the run’s last agent message (what an automation’s agent node outputs), sanitized like its events', () => {
  test('the message of the last assistant_message event, not of a later tool call; a secret in it redacted', async () => {
    const { userId, runId } = await newRun();
    await h.event(runId, 0);
    await h.event(runId, 1, { eventType: 'assistant_message', toolName: null, message: 'first thoughts' });
    await h.event(runId, 2, { eventType: 'assistant_message', toolName: null, message: 'Done. token ghp_0123456789abcdefghijABCDEFGHIJ0123456789' });
    await h.event(runId, 3, { eventType: 'tool_call', toolName: 'shell', message: 'ls' });
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 4 });
    const run = await h.waitFor('success', async () => {
      const current = await h.internalRun(userId, runId);
      return current.status === 'success' ? current : undefined;
    });
    expect(run.lastMessage).toMatch(/^Done\. token /);
    expect(run.lastMessage).not.toContain('ghp_0123456789abcdefghij');
  });

  test('a message longer than an event may be: the event shows its first 2,000 characters, the last message is whole (fullText), sanitized', async () => {
    const { userId, runId } = await newRun();
    const long = `${'finding '.repeat(600)}token ghp_0123456789abcdefghijABCDEFGHIJ0123456789 end`;
    await h.event(runId, 0, { eventType: 'assistant_message', toolName: null, message: long.slice(0, 2_000), fullText: long });
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 1 });
    const run = await h.waitFor('success', async () => {
      const current = await h.internalRun(userId, runId);
      return current.status === 'success' ? current : undefined;
    });
    expect(run.lastMessage?.length).toBeGreaterThan(4_000);
    expect(run.lastMessage).toMatch(/token \S+ end$/);
    expect(run.lastMessage).not.toContain('ghp_0123456789abcdefghij');
    const [event] = (await h.events(userId, runId)).events;
    expect(Object.keys(event ?? {}).sort()).toEqual(['createdAt', 'id', 'message', 'payload', 'toolName', 'type']);
    expect(event?.message?.length).toBeLessThanOrEqual(2_000);
  });

  test('a run without an agent message has lastMessage null', async () => {
    const { userId, runId } = await newRun();
    await h.event(runId, 0);
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 1 });
    const run = await h.waitFor('success', async () => {
      const current = await h.internalRun(userId, runId);
      return current.status === 'success' ? current : undefined;
    });
    expect(run.lastMessage).toBeNull();
  });
});

describe('the run keeps the usage totals of runs.finished (internal view); without them usage stays null', () => {
  test('usage of the sandbox’s finish is stored with the end', async () => {
    const { userId, runId } = await newRun();
    await h.event(runId, 0);
    const usage = { inputTokens: 1234, cachedInputTokens: 1000, outputTokens: 56 };
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 1, usage });
    const run = await h.waitFor('success', async () => {
      const current = await h.internalRun(userId, runId);
      return current.status === 'success' ? current : undefined;
    });
    expect(run.usage).toEqual(usage);
  });

  test('a failed run keeps its usage too (the tokens were spent)', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, {
      status: 'failed',
      error: 'it broke',
      failure: 'agent',
      eventCount: 0,
      usage: { inputTokens: 9, cachedInputTokens: 0, outputTokens: 1 },
    });
    const run = await h.waitFor('failed', async () => {
      const current = await h.internalRun(userId, runId);
      return current.status === 'failed' ? current : undefined;
    });
    expect(run.usage).toEqual({ inputTokens: 9, cachedInputTokens: 0, outputTokens: 1 });
  });

  test('a finish held for its events keeps its usage until it is applied', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 1, usage: { inputTokens: 3, cachedInputTokens: 1, outputTokens: 2 } });
    await h.waitFor('the finish held', async () => h.logLines.some((line) => line.includes(runId) && line.includes('finish held until its events are stored')));
    expect((await h.internalRun(userId, runId)).usage).toBeNull();
    await h.event(runId, 0);
    const run = await h.waitFor('success', async () => {
      const current = await h.internalRun(userId, runId);
      return current.status === 'success' ? current : undefined;
    });
    expect(run.usage).toEqual({ inputTokens: 3, cachedInputTokens: 1, outputTokens: 2 });
  });

  test('a finish without usage leaves it null', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, { status: 'cancelled', error: null, failure: null, eventCount: 0 });
    const run = await h.waitFor('cancelled', async () => {
      const current = await h.internalRun(userId, runId);
      return current.status === 'cancelled' ? current : undefined;
    });
    expect(run.usage).toBeNull();
  });
});

describe('GET events: the contract’s RunEvent fields, oldest first, each answer with the current run', () => {
  test('fields exactly; id, type, toolName, message, payload, createdAt as sent', async () => {
    const { userId, runId } = await newRun();
    const emittedAt = '2026-01-02T03:04:05.678Z';
    await h.event(runId, 0, { eventType: 'stream_started', toolName: null, message: 'Run started', payload: {}, emittedAt });
    await h.event(runId, 1, { eventType: 'tool_call', toolName: 'shell', message: null, payload: { command: 'npm test', exit_code: 0 }, emittedAt });
    const { run, events } = await h.waitFor('two events', async () => {
      const answer = await h.events(userId, runId);
      return answer.events.length === 2 ? answer : undefined;
    });
    expect(run.runId).toBe(runId);
    expect(run.status).toBe('streaming');
    expect(events).toEqual([
      { id: `${runId}:event:0`, type: 'stream_started', toolName: null, message: 'Run started', payload: {}, createdAt: emittedAt },
      { id: `${runId}:event:1`, type: 'tool_call', toolName: 'shell', message: null, payload: { command: 'npm test', exit_code: 0 }, createdAt: emittedAt },
    ]);
  });

  test('oldest first by seq, whatever order they were stored in; limit 1 to 200, default 100, clamped', async () => {
    const { userId, runId } = await newRun();
    // seq 204 … 0: stored newest first.
    const seqs = Array.from({ length: 205 }, (_, i) => 204 - i);
    await h.bus.publishMany(
      'runs.agent-events',
      seqs.map((seq) => ({
        key: runId,
        type: 'run.agent-event',
        id: `${runId}:event:${seq}`,
        data: { runId, seq, eventType: 'tool_call', toolName: 'shell', message: `event ${seq}`, payload: {}, emittedAt: new Date().toISOString() },
      })),
    );
    // A wait, not a speed check: 205 events through the consumer take seconds, many more on a loaded machine.
    await h.waitFor('205 events', async () => (await h.db.collection('run_events').countDocuments({ runId })) === 205, 100_000);
    const ids = (events: { id: string }[]) => events.map((e) => e.id);
    const expected = (n: number) => Array.from({ length: n }, (_, seq) => `${runId}:event:${seq}`);
    expect(ids((await h.events(userId, runId)).events)).toEqual(expected(100));
    expect(ids((await h.events(userId, runId, 5)).events)).toEqual(expected(5));
    expect(ids((await h.events(userId, runId, 0)).events)).toEqual(expected(1));
    expect(ids((await h.events(userId, runId, -3)).events)).toEqual(expected(1));
    expect(ids((await h.events(userId, runId, 200)).events)).toEqual(expected(200));
    expect(ids((await h.events(userId, runId, 5000)).events)).toEqual(expected(200));
  }, 150_000);

  test('a limit that is not an integer: 400 BAD_REQUEST', async () => {
    const { userId, runId } = await newRun();
    const answer = await h.call('GET', `/internal/users/${userId}/runs/${runId}/events?limit=ten`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'limit must be an integer' } });
  });

  test('a run with no events yet: an empty list and the pending run', async () => {
    const { userId, runId } = await newRun();
    const { run, events } = await h.events(userId, runId);
    expect(events).toEqual([]);
    expect(run.status).toBe('pending');
  });
});

describe('every event is sanitized before it is stored: no secret value is anywhere in GET events', () => {
  test('secret keys, secret values in text, long strings, deep and wide payloads', async () => {
    const { userId, runId } = await newRun();
    const secrets = ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'sk-proj-abcdefghijklmnop1234', 'abcdef123456789xyzSECRET', 'plain-env-value-42'];
    await h.event(runId, 0, {
      eventType: 'tool_call',
      toolName: 'shell',
      message: `ran with GITHUB_TOKEN=${secrets[0]}`,
      payload: {
        env: { HOME: '/root', CUSTOM: secrets[3] },
        command: `curl -H "Authorization: Bearer ${secrets[2]}" https://api`,
        output: `OPENAI_API_KEY=${secrets[1]}\nPATH=/bin`,
        apiKeySource: 'ANTHROPIC_API_KEY',
        long: 'x'.repeat(5_000),
        wide: Array.from({ length: 40 }, (_, i) => i),
        deep: { a: { b: { c: { d: 'too deep' } } } },
      },
    });
    const { events } = await h.waitFor('the event', async () => {
      const answer = await h.events(userId, runId);
      return answer.events.length === 1 ? answer : undefined;
    });
    const text = JSON.stringify(events);
    for (const secret of secrets) expect(text).not.toContain(secret);
    const payload = events[0]?.payload ?? {};
    expect(payload.env).toBe('[REDACTED]');
    expect(payload.apiKeySource).toBe('[REDACTED]');
    expect((payload.long as string).length).toBeLessThanOrEqual(2_000);
    expect((payload.wide as unknown[]).length).toBe(25);
    expect(JSON.stringify(payload.deep)).not.toContain('too deep');
    expect(events[0]?.message).toContain('GITHUB_TOKEN=[REDACTED]');
    // Sanitized before storage: the secret is not in the database either.
    const stored = await h.db.collection('run_events').find({ runId }).toArray();
    for (const secret of secrets) expect(JSON.stringify(stored)).not.toContain(secret);
  });
});

describe('events that arrive together are stored together: one handler call for many, each event once, in seq order', () => {
  /** Calls of runs' handlers of `runs.agent-events` so far (this process's registry: the runs service runs in it). */
  const agentEventHandlerCalls = async () =>
    sumOf(parseMetricsText((await metricsText()).body), 'ars_bus_handler_duration_seconds_count', { topic: 'runs.agent-events' });

  test('a hundred events sent in one request, two of them twice: a hundred events, in order, handled in fewer calls than events; the run ends success', async () => {
    const { userId, runId } = await newRun();
    await h.allocate(runId);
    const before = await agentEventHandlerCalls();
    const messages = Array.from({ length: 100 }, (_, seq) => agentEventMessage(runId, seq));
    await h.bus.publishMany('runs.agent-events', [...messages.slice(0, 50), messages[10]!, messages[20]!, ...messages.slice(50)]);
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 100 });
    await h.waitFor('success', async () => (await h.getRun(userId, runId)).status === 'success');
    const { events } = await h.events(userId, runId, 200);
    expect(events.map((event) => event.id)).toEqual(messages.map((_, seq) => `${runId}:event:${seq}`));
    expect(await h.db.collection('run_events').countDocuments({ runId })).toBe(100);
    expect((await agentEventHandlerCalls()) - before).toBeLessThan(100);
  });
});
