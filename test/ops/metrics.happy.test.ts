// GET /metrics of every service on the whole stack, scraped on each one's metrics listener before and
// after one run through the gateway and one automation run: the counters moved by exactly what
// happened, under route templates and bounded labels; no user data in any label; the Grafana
// dashboard only queries metric families the services export; no API port serves /metrics.
import { readFileSync } from 'node:fs';
import { parseMetricsText, sumOf, type Scrape } from '@ars/metrics';
import { waitFor, ownSystem } from '@ars/testenv';
import { automationClient, graphOf, startAutomation, untilRun } from '../support/automations.js';
import { newRunsUser } from '../support/runs.js';

const system = ownSystem('it reads the services’ metric totals, which count every tenant');

const SERVICES = ['gateway', 'catalog', 'runs', 'sandboxes', 'automations-engine', 'pr-review', 'mcp-registry'] as const;
type Service = (typeof SERVICES)[number];

const urlOf = (service: Service): string => (service === 'gateway' ? system().baseUrl : system().stack.services[service].url);
/** The service's metrics listener, a port of its own on loopback (METRICS_PORT, reserved by the stack). */
const metricsUrlOf = (service: Service): string => {
  const url = system().stack.services[service].metricsUrl;
  if (!url) throw new Error(`the stack gave ${service} no metrics port`);
  return url;
};

/** `GET /metrics` as Prometheus scrapes it: no token, no header. */
async function scrapeText(service: Service): Promise<string> {
  const response = await fetch(metricsUrlOf(service));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
  return response.text();
}
const scrape = async (service: Service): Promise<Scrape> => parseMetricsText(await scrapeText(service));

/** Waits until `check` holds on a fresh scrape of `service` (counters move when the work is written, slightly after the API shows it). */
async function scrapeUntil(service: Service, what: string, check: (scraped: Scrape) => boolean): Promise<Scrape> {
  let last: Scrape | undefined;
  return waitFor(
    () => `${service}: ${what}`,
    async () => {
      last = await scrape(service);
      return check(last) ? last : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}

/**
 * The metric families the dashboard's expressions name (`ars_…`, `process_…`, `nodejs_…`), histogram
 * suffixes removed; label matchers (`{…}`) and groupings (`by (…)`) are left out: they name labels.
 */
function dashboardMetricNames(): Map<string, string> {
  const dashboard = JSON.parse(readFileSync(new URL('../../charts/agent-run-service/dashboards/agent-run-service.json', import.meta.url), 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  const names = new Map<string, string>();
  for (const panel of dashboard.panels) {
    for (const target of panel.targets ?? []) {
      const metricsOnly = target.expr.replace(/\{[^}]*\}/g, '').replace(/\b(?:by|without)\s*\([^)]*\)/g, '');
      for (const [name] of metricsOnly.matchAll(/\b(?:ars|process|nodejs)_[a-z0-9_]+/g)) names.set(name.replace(/_(bucket|count|sum)$/, ''), panel.title);
    }
  }
  return names;
}

describe("no service's API port serves GET /metrics: 404 NOT_FOUND in the envelope, the gateway's public port included", () => {
  test.each(SERVICES)('%s', async (service) => {
    const response = await fetch(`${urlOf(service)}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'No route for GET /metrics' } });
  });
});

describe('every service answers GET /metrics on its metrics listener in the Prometheus text format, without authentication, naming itself', () => {
  test.each(SERVICES)('%s: ars_service on its samples, Node process metrics, HTTP metrics', async (service) => {
    const scraped = await scrape(service);
    expect(sumOf(scraped, 'process_resident_memory_bytes', { ars_service: service })).toBeGreaterThan(0);
    expect(scraped.types.get('ars_http_requests_total')).toBe('counter');
    expect(scraped.types.get('ars_http_request_duration_seconds')).toBe('histogram');
  });
});

describe('one run through the gateway moves the counters of the gateway, runs and sandboxes', () => {
  let before: Record<'gateway' | 'runs' | 'sandboxes', Scrape>;
  let after: Record<'gateway' | 'runs' | 'sandboxes', Scrape>;
  let secrets: string[];

  beforeAll(async () => {
    const { runs, repoId, account } = await newRunsUser(system().baseUrl, 1);
    before = { gateway: await scrape('gateway'), runs: await scrape('runs'), sandboxes: await scrape('sandboxes') };
    const prompt = 'Count me.\n@say metric-prompt-marker\n@shell echo one';
    const started = await runs.started({ repoId, prompt, harness: 'codex' });
    const { run, events } = await runs.waitFor(started.runId);
    expect(run).toMatchObject({ status: 'success' });
    const successes = (s: Scrape) => sumOf(s, 'ars_runs_finished_total', { status: 'success' });
    const handled = (s: Scrape) => sumOf(s, 'ars_bus_messages_total', { topic: 'runs.agent-events', consumer_group: 'runs', outcome: 'handled' });
    const runsAfter = await scrapeUntil(
      'runs',
      'the run counted as finished and its events as handled',
      (s) => successes(s) > successes(before.runs) && handled(s) - handled(before.runs) >= events.length,
    );
    const sandboxesAfter = await scrapeUntil(
      'sandboxes',
      'runs.requested handled',
      (s) =>
        sumOf(s, 'ars_bus_messages_total', { topic: 'runs.requested', outcome: 'handled' }) >
        sumOf(before.sandboxes, 'ars_bus_messages_total', { topic: 'runs.requested', outcome: 'handled' }),
    );
    after = { gateway: await scrape('gateway'), runs: runsAfter, sandboxes: sandboxesAfter };
    secrets = [account.userId, repoId, run.runId, 'metric-prompt-marker', system().internalToken];
  }, 120_000);

  const moved = (service: keyof typeof before, name: string, labels: Record<string, string> = {}) =>
    sumOf(after[service], name, labels) - sumOf(before[service], name, labels);

  test('gateway: POST /api/v1/svc/runs counted once as 202 under its template, the polls under /runs/:runId/events', () => {
    expect(moved('gateway', 'ars_http_requests_total', { method: 'POST', route: '/api/v1/svc/runs', status: '202' })).toBe(1);
    expect(moved('gateway', 'ars_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/svc/runs' })).toBe(1);
    expect(moved('gateway', 'ars_http_requests_total', { method: 'GET', route: '/api/v1/svc/runs/:runId/events', status: '200' })).toBeGreaterThanOrEqual(1);
  });

  test('runs: one run started and one ended success, its duration observed; its events handled from runs.agent-events', () => {
    expect(moved('runs', 'ars_runs_started_total', { harness: 'codex' })).toBe(1);
    expect(moved('runs', 'ars_runs_finished_total', { status: 'success', harness: 'codex' })).toBe(1);
    expect(moved('runs', 'ars_runs_finished_total', { status: 'failed' })).toBe(0);
    expect(moved('runs', 'ars_run_duration_seconds_count', { status: 'success', harness: 'codex' })).toBe(1);
    expect(moved('runs', 'ars_run_duration_seconds_sum', { status: 'success' })).toBeGreaterThan(0);
    expect(moved('runs', 'ars_bus_messages_total', { topic: 'runs.agent-events', consumer_group: 'runs', outcome: 'handled' })).toBeGreaterThanOrEqual(2);
    expect(moved('runs', 'ars_bus_messages_total', { topic: 'runs.finished', consumer_group: 'runs', outcome: 'handled' })).toBe(1);
    expect(moved('runs', 'ars_bus_handler_duration_seconds_count', { topic: 'runs.agent-events', consumer_group: 'runs' })).toBeGreaterThanOrEqual(2);
    expect(moved('runs', 'ars_bus_messages_total', { outcome: 'dead_lettered' })).toBe(0);
    expect(moved('runs', 'ars_http_requests_total', { method: 'POST', route: '/internal/users/:userId/runs', status: '202' })).toBe(1);
  });

  test('sandboxes: runs.requested handled once; the live sandboxes gauge read from the store', () => {
    expect(moved('sandboxes', 'ars_bus_messages_total', { topic: 'runs.requested', outcome: 'handled' })).toBe(1);
    expect(after.sandboxes.types.get('ars_sandboxes_live')).toBe('gauge');
    expect(after.sandboxes.samples.filter((s) => s.name === 'ars_sandboxes_live').map((s) => s.labels.state)).toEqual(
      expect.arrayContaining(['provisioning', 'ready']),
    );
  });

  test('consumer lag per partition the member holds, read from Kafka: runs.agent-events drains to 0', async () => {
    const lag = (s: Scrape) =>
      s.samples.filter(
        (sample) => sample.name === 'ars_bus_consumer_lag' && sample.labels.topic === 'runs.agent-events' && sample.labels.consumer_group === 'runs',
      );
    const drained = await scrapeUntil('runs', 'lag of runs.agent-events read and 0', (s) => lag(s).length > 0 && lag(s).every((sample) => sample.value === 0));
    expect(new Set(lag(drained).map((sample) => sample.labels.partition)).size).toBe(12);
  });

  test('no label and no sample holds user data: no user id, repository id, run id, prompt or token', async () => {
    for (const service of ['gateway', 'runs', 'sandboxes'] as const) {
      const text = await scrapeText(service);
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});

describe("an automation run moves the engine's counters: runs by status, node runs by type and status", () => {
  test('start → set_variable → agent → end: one run success with its duration, one node run of each type success', async () => {
    const before = await scrape('automations-engine');
    const c = await automationClient(system().baseUrl);
    const graph = graphOf(
      [
        ['start', 'start'],
        ['set', 'set_variable', { name: 'label', value: '"counted"' }],
        ['agent', 'agent', { agentId: c.agentId, prompt: '@say {{ vars.label }}' }],
        ['end', 'end'],
      ],
      [
        ['start', 'set'],
        ['set', 'agent'],
        ['agent', 'end'],
      ],
    );
    const { automationId, runId } = await startAutomation(c, graph);
    await untilRun(c, automationId, runId, 'the automation run to succeed', (run) => run.status === 'success');
    const success = (s: Scrape) => sumOf(s, 'ars_automation_runs_total', { status: 'success' });
    const after = await scrapeUntil('automations-engine', 'the run counted', (s) => success(s) > success(before));
    const moved = (name: string, labels: Record<string, string>) => sumOf(after, name, labels) - sumOf(before, name, labels);
    expect(moved('ars_automation_runs_total', { status: 'success' })).toBe(1);
    expect(moved('ars_automation_runs_total', { status: 'pending' })).toBe(1);
    expect(moved('ars_automation_run_duration_seconds_count', { status: 'success' })).toBe(1);
    for (const nodeType of ['start', 'set_variable', 'agent', 'end'])
      expect(moved('ars_automation_node_runs_total', { node_type: nodeType, status: 'success' })).toBe(1);
    expect(moved('ars_automation_node_runs_total', { status: 'failed' })).toBe(0);
  });
});

describe('the Grafana dashboard queries only metric families the services export', () => {
  test('every metric name in every panel expression is exported by a service of the running stack', async () => {
    const exported = new Set<string>();
    for (const service of SERVICES) for (const name of (await scrape(service)).types.keys()) exported.add(name);
    const missing = [...dashboardMetricNames()].filter(([name]) => !exported.has(name)).map(([name, panel]) => `${name} (panel "${panel}")`);
    expect(missing).toEqual([]);
    expect(dashboardMetricNames().size).toBeGreaterThanOrEqual(10);
  });
});
