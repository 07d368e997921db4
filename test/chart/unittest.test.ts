// The chart's helm-unittest suites (charts/*/tests/*_test.yaml), run by the project's runner
// (unittest.ts): one describe per suite, one test per `it`. Real `helm unittest` runs them unchanged.
import { describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CHART_DIR } from './render.js';
import { readSuite, runTest, type Suite } from './unittest.js';

const testsDir = join(CHART_DIR, 'tests');
const suites = readdirSync(testsDir)
  .filter((f) => f.endsWith('_test.yaml'))
  .sort()
  .map((f) => ({ file: join(testsDir, f), suite: readSuite(join(testsDir, f)) }));

describe('the chart has helm-unittest suites', () => {
  it('one per template family at least', () => {
    expect(suites.map((s) => s.suite.suite).length).toBeGreaterThanOrEqual(7);
  });
});

for (const { file, suite } of suites) {
  describe(`${suite.suite} (${file.slice(CHART_DIR.length + 1)})`, () => {
    it.each(suite.tests.map((t) => [t.it, t] as const))('%s', (_it, test) => {
      expect(runTest(file, suite, test)).toEqual([]);
    });
  });
}

describe('the runner fails what does not hold', () => {
  const file = join(testsDir, 'runner_probe.yaml');
  const suite: Suite = { suite: 'probe', templates: ['templates/service.yaml'], values: ['../ci/minimal-values.yaml'], tests: [] };
  const failing: [string, Record<string, unknown>][] = [
    ['equal', { equal: { path: 'spec.type', value: 'NodePort' } }],
    ['notEqual', { notEqual: { path: 'spec.type', value: 'ClusterIP' } }],
    ['exists', { exists: { path: 'spec.externalName' } }],
    ['notExists', { notExists: { path: 'spec.ports' } }],
    ['isKind', { isKind: { of: 'Deployment' } }],
    ['hasDocuments', { hasDocuments: { count: 6 } }],
    ['contains', { contains: { path: 'spec.ports', content: { name: 'metrics' } } }],
    ['isSubset', { isSubset: { path: 'spec', content: { type: 'LoadBalancer' } } }],
    ['matchRegex', { matchRegex: { path: 'metadata.name', pattern: '^other-' } }],
    ['failedTemplate', { failedTemplate: { errorPattern: '.*' } }],
    ['not', { equal: { path: 'spec.type', value: 'ClusterIP' }, not: true }],
    ['an unknown assertion', { matchSnapshot: {} }],
  ];
  it.each(failing)('%s', (_name, assertion) => {
    expect(runTest(file, suite, { it: 'probe', asserts: [assertion] })).toHaveLength(1);
  });

  it('a value the schema refuses errors the test before any assertion, as helm-unittest does', () => {
    const problems = runTest(file, suite, { it: 'probe', set: { 'services.runs.replicas': 3 }, asserts: [{ hasDocuments: { count: 7 } }] });
    expect(problems).toEqual(['values.schema.json: /services/runs must NOT have additional properties: replicas']);
  });

  it('a documentSelector matching several documents, without matchMany', () => {
    const problems = runTest(file, suite, { it: 'probe', documentSelector: { path: 'kind', value: 'Service' }, asserts: [{ isKind: { of: 'Service' } }] });
    expect(problems).toEqual(['isKind: documentSelector kind="Service" matches 7 documents (matchMany is not set)']);
  });

  it('and a failed render fails every assertion but failedTemplate', () => {
    const problems = runTest(file, suite, { it: 'probe', set: { 'kafka.brokers': [] }, asserts: [{ hasDocuments: { count: 7 } }] });
    expect(problems).toEqual([
      'hasDocuments: the templates failed to render: execution error at (agent-run-service/templates/validate.yaml:8:4): kafka.brokers is required: the host:port list of an existing Kafka',
    ]);
  });
});
