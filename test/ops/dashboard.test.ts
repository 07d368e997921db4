// charts/agent-run-service/dashboards/agent-run-service.json as Grafana imports it: the dashboard
// model's required fields, a Prometheus data-source variable every panel and query uses, unique
// panel ids, a layout inside Grafana's 24 columns, and PromQL whose brackets balance. Which metric
// names the queries may use is checked against the running stack in metrics.happy.test.ts.
import { readFileSync } from 'node:fs';

interface Target {
  refId?: unknown;
  expr?: unknown;
  datasource?: { type?: unknown; uid?: unknown };
}
interface Panel {
  id?: unknown;
  type?: unknown;
  title?: unknown;
  gridPos?: { h: number; w: number; x: number; y: number };
  datasource?: { type?: unknown; uid?: unknown };
  targets?: Target[];
}
interface Dashboard {
  uid?: unknown;
  title?: unknown;
  schemaVersion?: unknown;
  panels?: Panel[];
  templating?: { list?: { name: string; type: string; query?: unknown }[] };
}

const dashboard = JSON.parse(readFileSync(new URL('../../charts/agent-run-service/dashboards/agent-run-service.json', import.meta.url), 'utf8')) as Dashboard;
const panels = dashboard.panels ?? [];
const graphs = panels.filter((panel) => panel.type !== 'row');
const PROMETHEUS = { type: 'prometheus', uid: '${datasource}' };

function balanced(expr: string): boolean {
  const closing: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  const stack: string[] = [];
  let quoted = false;
  for (const char of expr) {
    if (char === '"') quoted = !quoted;
    if (quoted) continue;
    if ('([{'.includes(char)) stack.push(char);
    else if (char in closing && stack.pop() !== closing[char]) return false;
  }
  return stack.length === 0 && !quoted;
}

describe('the dashboard is a Grafana dashboard model: uid, title, schemaVersion, panels', () => {
  test('its identity', () => {
    expect(dashboard).toMatchObject({ uid: 'agent-run-service', title: 'Agent Run Service' });
    expect(typeof dashboard.schemaVersion).toBe('number');
    expect(graphs.length).toBeGreaterThanOrEqual(12);
  });
  test('unique integer panel ids, every panel titled, inside 24 columns', () => {
    const ids = panels.map((panel) => panel.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of panels) {
      expect(typeof panel.title).toBe('string');
      const pos = panel.gridPos!;
      expect(pos.x + pos.w).toBeLessThanOrEqual(24);
      expect(pos.w).toBeGreaterThan(0);
      expect(pos.h).toBeGreaterThan(0);
    }
  });
});

describe('every panel queries Prometheus through the data-source variable', () => {
  test('a datasource variable of type prometheus exists, and a service variable from ars_service', () => {
    const variables = dashboard.templating?.list ?? [];
    expect(variables.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(JSON.stringify(variables.find((v) => v.name === 'service')?.query)).toContain('ars_service');
  });
  test.each(graphs.map((panel) => [String(panel.title), panel] as const))('%s: Prometheus targets with refIds and balanced PromQL', (_title, panel) => {
    expect(panel.datasource).toEqual(PROMETHEUS);
    expect(panel.targets?.length).toBeGreaterThan(0);
    const refIds = (panel.targets ?? []).map((target) => target.refId);
    expect(new Set(refIds).size).toBe(refIds.length);
    for (const target of panel.targets ?? []) {
      expect(target.datasource).toEqual(PROMETHEUS);
      expect(typeof target.expr).toBe('string');
      expect(balanced(String(target.expr))).toBe(true);
      expect(String(target.expr)).toMatch(/\b(ars|process|nodejs)_[a-z0-9_]+/);
    }
  });
});
