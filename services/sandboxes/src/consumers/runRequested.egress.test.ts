// A run's way out, on the service as it runs: the agent's sandbox has no route and no DNS of its
// own, and reaches outside hosts only through its egress proxy, as SANDBOX_EGRESS_ALLOW says; the
// host's own addresses, loopback and cloud metadata are refused whatever it says; every attempt is
// a lifecycle event of the sandbox. The outside host is a test host in a network namespace of this
// test's own (these machines have no internet; no test traffic goes anywhere else).
import { assertStandInsBuilt } from '../harness/testing.js';
import { startNetnsTestHost, TEST_HOST_GREETING, type NetnsTestHost } from '../egress/testing/netnsTestHost.js';
import { startSandboxesKit, type SandboxesKit } from '../testing/sandboxesKit.js';

const PORT = 8_080;
let kit: SandboxesKit;
let testHost: NetnsTestHost;

beforeAll(async () => {
  assertStandInsBuilt();
  testHost = await startNetnsTestHost({ port: PORT });
  kit = await startSandboxesKit();
  // The names the proxy resolves here: the allowlisted test host, a name off the list, and allowlisted names pointing inside.
  const names: Record<string, string> = {
    'api.testhost.example': testHost.address,
    'elsewhere.example': testHost.address,
    'loop.testhost.example': '127.0.0.1',
    'metadata.testhost.example': '169.254.169.254',
    'self.testhost.example': testHost.hostSideAddress,
  };
  await kit.startService(
    { SANDBOX_EGRESS_ALLOW: `*.testhost.example:${PORT}` },
    { egressLookup: (host) => (names[host] ? Promise.resolve([names[host]]) : Promise.reject(new Error(`${host}: not found`))) },
  );
}, 60_000);
afterAll(async () => {
  await kit?.stop();
  await testHost?.close();
});

/** One HTTP GET through whatever the sandbox has: its status line, or why it failed. */
const curl = (url: string, options = ''): string => `@shell curl -s -o /dev/null -w '%{http_code}\\n' --max-time 5 ${options} ${url} 2>&1 || echo failed`;

describe('a sandbox reaches outside only through its egress proxy, and only what SANDBOX_EGRESS_ALLOW names', () => {
  test('the allowlisted host answers (twice: one event); a name off the list, loopback, metadata and the host’s own address are refused; no route or DNS around the proxy; each attempt is a lifecycle event', async () => {
    const repo = await kit.newRepo();
    const prompt = [
      `@shell curl -s --max-time 5 http://api.testhost.example:${PORT}/ || echo failed`,
      `@shell curl -s --max-time 5 http://api.testhost.example:${PORT}/again || echo failed`,
      curl(`http://elsewhere.example:${PORT}/`),
      curl(`http://loop.testhost.example:${PORT}/`),
      curl(`http://metadata.testhost.example:${PORT}/`),
      curl(`http://self.testhost.example:${PORT}/`),
      // Around the proxy: the test host's address directly, and the name without the proxy (no resolver).
      curl(`http://${testHost.address}:${PORT}/`, "--noproxy '*'"),
      curl(`http://api.testhost.example:${PORT}/`, "--noproxy '*'"),
    ].join('\n');
    const request = await kit.requestRun(repo, prompt);
    expect(await kit.waitFinished(request.runId, 60_000)).toMatchObject({ status: 'success' });
    const outputs = kit
      .messages(request.runId)
      .events.filter((event) => event.eventType === 'tool_call')
      .map((event) => String(event.payload.output).trim());
    expect(outputs).toEqual([
      TEST_HOST_GREETING,
      expect.stringContaining('/again'),
      '403',
      '403',
      '403',
      '403',
      expect.stringMatching(/^000/),
      expect.stringMatching(/^000/),
    ]);

    const session = await kit.service!.deps.runSessions.get(request.runId);
    const lifecycle = await kit.service!.deps.sandboxRecords.lifecycleOf(session!.sandboxRecordId!);
    const egress = lifecycle.filter((event) => event.event_type.startsWith('egress_'));
    expect(egress.map((event) => [event.event_type, event.decision_code, event.payload.host])).toEqual([
      ['egress_allowed', 'agent', 'api.testhost.example'],
      ['egress_refused', 'agent', 'elsewhere.example'],
      ['egress_refused', 'agent', 'loop.testhost.example'],
      ['egress_refused', 'agent', 'metadata.testhost.example'],
      ['egress_refused', 'agent', 'self.testhost.example'],
    ]);
    expect(egress[0]?.payload).toMatchObject({ port: PORT, address: testHost.address });
    expect(egress[3]?.payload).toMatchObject({ address: '169.254.169.254' });
  }, 90_000);
});
