// An automation run is one trace: its trigger's span, and a span per node run under it, from the
// node's start to its end — with telemetry on in this process, exporting to a collector here.
import { shutdownTelemetry, startTelemetry } from '@ars/telemetry';
import { startOtlpReceiver, type OtlpReceiver } from '@ars/testenv';
import { automationFlows, graphOf, type AutomationFlows } from '../testing/automationFlows.js';
import { startAutomationsHarness, type AutomationsHarness, type AutomationTenant } from '../testing/index.js';

let receiver: OtlpReceiver;
let h: AutomationsHarness;
let flows: AutomationFlows;
let tenant: AutomationTenant;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // The engine's own spans only: the HTTP, MongoDB … instrumentations patch modules at load, which
  // a whole-stack run does (the preload); here nothing else would be in these spans' way.
  startTelemetry({ serviceName: 'automations-engine', otlpEndpoint: receiver.url, instrumentations: [] });
  h = await startAutomationsHarness({ runs: true });
  flows = automationFlows(h);
  tenant = await h.newTenant();
});
afterAll(async () => {
  await h?.stop();
  await shutdownTelemetry();
  await receiver?.close();
});

describe('an automation run’s node runs are spans of one trace, under the run’s span', () => {
  test('start → agent → end: three node spans with their type, status and times, children of the automation run’s span; no prompt in them', async () => {
    const prompt = `Fix it ${Math.random().toString(36).slice(2, 10)}.`;
    const { automationId, runId } = await flows.start(
      tenant,
      graphOf(
        [
          ['start', 'start'],
          ['fix', 'agent', { agentId: tenant.agentId, prompt }],
          ['end', 'end'],
        ],
        [
          ['start', 'fix'],
          ['fix', 'end'],
        ],
      ),
    );
    const agentRunId = await flows.agentRunOf(tenant, automationId, runId, 'fix');
    await flows.finishAgentRun(agentRunId, 'success', 'Fixed.');
    await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success');
    // Flushes every span ended so far to the collector.
    await shutdownTelemetry();

    const spans = receiver.spans().filter((span) => span.attributes['ars.automation_run.id'] === runId);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const root = spans.find((span) => span.name === `automation_run ${automationId}`);
    expect(root).toMatchObject({ parentSpanId: '', serviceName: 'automations-engine' });
    const nodes = spans.filter((span) => span.name.startsWith('automation_node '));
    expect(nodes.map((span) => [span.attributes['ars.node.id'], span.name, span.attributes['ars.node.status']]).sort()).toEqual([
      ['end', 'automation_node end', 'success'],
      ['fix', 'automation_node agent', 'success'],
      ['start', 'automation_node start', 'success'],
    ]);
    for (const node of nodes) {
      expect(node.parentSpanId).toBe(root!.spanId);
      expect(BigInt(node.startTimeUnixNano)).toBeLessThanOrEqual(BigInt(node.endTimeUnixNano));
    }
    const fix = nodes.find((span) => span.attributes['ars.node.id'] === 'fix')!;
    expect(fix.attributes['ars.run.id']).toBe(agentRunId);
    // The agent node spans its agent run: from the node's start until the run's end was applied.
    expect(BigInt(fix.endTimeUnixNano) - BigInt(fix.startTimeUnixNano)).toBeGreaterThan(0n);
    expect(receiver.rawBodies().join('\n')).not.toContain(prompt);
  });
});
