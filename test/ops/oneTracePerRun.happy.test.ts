// One run is one trace (DESIGN.md, Operations): on the whole stack with telemetry on, exporting to a
// collector in this process, a run started through the gateway leaves one trace from the gateway's
// `POST /runs` through runs, `runs.requested`, sandboxes, the harness (its span and its tool calls,
// reported by sandboxes from the harness's events) and the events back to runs — every parent
// link valid across Kafka —, the harness process gets the trace in `TRACEPARENT`, the services'
// log lines inside it carry its `trace_id`, and nothing secret or agent-written reaches a span.
import { SPAN_KIND, startOtlpReceiver, waitFor, type OtlpReceiver, type ReceivedSpan, ownSystem } from '@ars/testenv';
import { newRunsUser, type RunEvent, type RunsClient } from '../support/runs.js';

let receiver: OtlpReceiver;
const lines: string[] = [];
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => receiver.close());

const system = ownSystem('telemetry is on in every service, exporting to its own collector', {}, () => ({
  telemetry: { otlpEndpoint: receiver.url, exportDelayMs: 100 },
  logLevel: 'info',
  output: (line) => lines.push(line),
}));

// Agent-written text that must never reach a span: a tool input and a message.
const MARKER = `agenttext${Math.random().toString(36).slice(2, 10)}`;
const PROMPT = [`@tool search {"query":"${MARKER}"}`, '@shell env', `@say ${MARKER} done`].join('\n');

let runs: RunsClient;
let runId: string;
let events: RunEvent[];
let trace: ReceivedSpan[];
let traceId: string;

const spanNamed = (name: string, service?: string) => trace.filter((span) => span.name === name && (!service || span.serviceName === service));

beforeAll(async () => {
  let repoId: string;
  ({ runs, repoId } = await newRunsUser(system().baseUrl));
  runId = (await runs.started({ repoId, prompt: PROMPT, harness: 'codex' })).runId;
  const ended = await runs.waitFor(runId, undefined, 90_000);
  expect(ended.run).toMatchObject({ status: 'success' });
  events = ended.events;
  // The gateway's server span of this run's POST /runs is the trace's root. Services export on their
  // own schedules, so a consumer's span may arrive before its producer's: wait until every hop has been
  // exported (a consumer span in runs per event, the finish, the harness span) and no parent is missing.
  let missing = 'the gateway’s POST /runs span';
  trace = await waitFor(
    () => `the run’s trace with every hop exported (missing: ${missing})`,
    () => {
      const spans = receiver.spans();
      const start = spans.find(
        (span) =>
          span.serviceName === 'gateway' &&
          span.kind === SPAN_KIND.server &&
          span.attributes['url.path'] === '/api/v1/svc/runs' &&
          span.attributes['http.request.method'] === 'POST',
      );
      if (!start) return undefined;
      const mine = spans.filter((span) => span.traceId === start.traceId);
      const ids = new Set(mine.map((span) => span.spanId));
      const eventsConsumed = mine.filter((span) => span.serviceName === 'runs' && span.name === 'runs.agent-events process').length;
      const wanted: [boolean, string][] = [
        [eventsConsumed >= events.length, `${events.length - eventsConsumed} runs.agent-events process`],
        [mine.some((span) => span.serviceName === 'runs' && span.name === 'runs.finished process'), 'runs.finished process'],
        [mine.some((span) => span.name === 'harness codex'), 'the harness span'],
        [mine.every((span) => span.parentSpanId === '' || ids.has(span.parentSpanId)), 'a parent of a received span'],
      ];
      missing = wanted
        .filter(([done]) => !done)
        .map(([, what]) => what)
        .join(', ');
      return missing === '' ? mine : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  traceId = trace[0]!.traceId;
}, 180_000);

describe('one run through the gateway is one trace, with a span per hop', () => {
  test('the trace holds spans of the gateway, runs, sandboxes and the harness (service.name per service)', () => {
    const services = new Set(trace.map((span) => span.serviceName));
    for (const service of ['gateway', 'runs', 'sandboxes', 'harness']) expect(services).toContain(service);
  });

  test('exactly one trace id holds the run: every span naming the run or one of its messages is in it', () => {
    const ofRun = receiver
      .spans()
      .filter((span) => span.attributes['ars.run.id'] === runId || String(span.attributes['messaging.message.id'] ?? '').startsWith(`${runId}:`));
    expect(ofRun.length).toBeGreaterThan(events.length);
    expect(new Set(ofRun.map((span) => span.traceId))).toEqual(new Set([traceId]));
  });

  test('the root is the gateway’s server span of POST /runs, and every other span’s parent is in the trace', () => {
    const ids = new Set(trace.map((span) => span.spanId));
    const roots = trace.filter((span) => span.parentSpanId === '');
    expect(roots).toHaveLength(1);
    expect(roots[0]).toMatchObject({ serviceName: 'gateway', kind: SPAN_KIND.server });
    expect(roots[0]!.attributes['url.path']).toBe('/api/v1/svc/runs');
    const orphans = trace.filter((span) => span.parentSpanId !== '' && !ids.has(span.parentSpanId)).map((span) => `${span.serviceName}: ${span.name}`);
    expect(orphans).toEqual([]);
  });

  test('parent links cross Kafka: each consumer span is the child of the producer span of its message', () => {
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const hops: [string, string, string][] = [
      ['runs.requested', 'runs', 'sandboxes'],
      ['runs.sandbox-allocated', 'sandboxes', 'runs'],
      ['runs.agent-events', 'sandboxes', 'runs'],
      ['runs.finished', 'sandboxes', 'runs'],
    ];
    for (const [topic, producer, consumer] of hops) {
      const consumed = spanNamed(`${topic} process`, consumer);
      expect(consumed.length).toBeGreaterThan(0);
      for (const span of consumed) {
        const parent = byId.get(span.parentSpanId);
        expect({ topic, parent: parent && `${parent.serviceName}: ${parent.name}`, kind: parent?.kind }).toEqual({
          topic,
          parent: `${producer}: ${topic} publish`,
          kind: SPAN_KIND.producer,
        });
      }
    }
    expect(spanNamed('runs.agent-events process', 'runs')).toHaveLength(events.length);
  });

  test('the harness span is a child of the run’s runs.requested consumer span in sandboxes; its events are published under it', () => {
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const [harness] = spanNamed('harness codex', 'harness');
    expect(harness?.attributes).toMatchObject({ 'ars.run.id': runId, 'ars.harness': 'codex', 'ars.harness.stand_in': true, 'ars.harness.status': 'success' });
    const ancestors = (span: ReceivedSpan): ReceivedSpan[] => {
      const chain: ReceivedSpan[] = [];
      for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId)) chain.push(at);
      return chain;
    };
    expect(ancestors(harness!).map((span) => span.name)).toContain('runs.requested process');
    for (const publish of spanNamed('runs.agent-events publish', 'sandboxes')) expect(ancestors(publish)).toContainEqual(harness);
  });

  test('each harness tool call is a span under the harness span, named by its tool, with its status only', () => {
    const [harness] = spanNamed('harness codex', 'harness');
    const tools = trace.filter((span) => span.name.startsWith('tool_call '));
    expect(tools.map((span) => span.name).sort()).toEqual(['tool_call search', 'tool_call shell']);
    for (const tool of tools) {
      expect(tool.parentSpanId).toBe(harness!.spanId);
      expect(tool.serviceName).toBe('harness');
      expect(Object.keys(tool.attributes).sort()).toEqual(['ars.run.id', 'ars.tool.name', 'ars.tool.status']);
      expect(tool.attributes['ars.tool.status']).toBe('ok');
      expect(BigInt(tool.startTimeUnixNano)).toBeLessThanOrEqual(BigInt(tool.endTimeUnixNano));
    }
  });
});

describe('the harness process gets the trace in TRACEPARENT (the OpenTelemetry environment carrier)', () => {
  test('@shell env shows TRACEPARENT naming the trace and the harness span', () => {
    const [harness] = spanNamed('harness codex', 'harness');
    const shell = events.find((event) => event.type === 'tool_call' && event.toolName === 'shell');
    expect(String(shell?.payload.output)).toMatch(new RegExp(`^TRACEPARENT=00-${traceId}-${harness!.spanId}-01$`, 'm'));
  });
});

describe('log lines inside a span carry its trace_id and span_id: HTTP handlers and consumer handlers', () => {
  const records = (service: string) =>
    lines
      .filter((line) => line.startsWith(`${service} `))
      .map((line) => line.slice(line.indexOf('| ') + 2))
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as Record<string, unknown>);

  test('the gateway’s access line of POST /runs, runs’ consumer lines and sandboxes’ session line have the run’s trace_id', () => {
    const access = records('gateway').find((record) => record.msg === 'request' && record.method === 'POST' && record.path === '/api/v1/svc/runs');
    expect(access?.trace_id).toBe(traceId);
    expect(access?.span_id).toMatch(/^[0-9a-f]{16}$/);
    const runsLines = records('runs').filter((record) => record.run_id === runId && (record.msg === 'run status changed' || record.msg === 'run finished'));
    expect(runsLines.length).toBeGreaterThan(0);
    for (const record of runsLines) expect(record.trace_id).toBe(traceId);
    const session = records('sandboxes').find((record) => record.run_id === runId && record.msg === 'sandbox allocated: session starting');
    expect(session?.trace_id).toBe(traceId);
  });
});

describe('spans carry no secret and no agent text', () => {
  test('no exported span holds the tool input, the agent’s message, the PAT or the internal token; MongoDB statements have no values, Redis ones only the command', () => {
    const exported = receiver.rawBodies().join('\n');
    expect(exported).not.toContain(MARKER);
    expect(exported).not.toContain(runs.token);
    expect(exported).not.toContain(system().internalToken);
    expect(exported.toLowerCase()).not.toContain('authorization');
    const statements = (system: string) =>
      receiver
        .spans()
        .filter((span) => span.attributes['db.system.name'] === system || span.attributes['db.system'] === system)
        .map((span) => span.attributes['db.query.text'] ?? span.attributes['db.statement']);
    const mongo = statements('mongodb');
    expect(mongo.length).toBeGreaterThan(0);
    for (const statement of mongo) {
      for (const value of Object.values(JSON.parse(String(statement)) as Record<string, unknown>)) expect(value).toBe('?');
    }
    const redis = statements('redis');
    expect(redis.length).toBeGreaterThan(0);
    for (const statement of redis) expect(statement).toMatch(/^[a-z]+$/i);
  });
});
