// Rule: a model provider that cannot be reached fails the run within a minute, with an error that
// names the provider, never a run that hangs retrying ("Reconnecting..." forever). Run with the
// bundled real CLIs (codex-cli 0.163.0, Claude Code 2.1.330) against a closed port: no server needed.
import type { HarnessEvent, HarnessName } from './adapter.js';
import { runHarness } from './index.js';
import { closedPort } from './realCliTesting.js';
import { makeWorkTree, scrubbedEnv, type WorkTree } from './testing.js';

const HARNESSES: HarnessName[] = ['codex', 'claude-code'];

describe.each(HARNESSES)('%s (the bundled real CLI)', (harness) => {
  let tree: WorkTree;
  beforeEach(async () => {
    tree = await makeWorkTree();
  });
  afterEach(async () => {
    await tree.cleanup();
  });

  test('an unreachable model provider ends the run failed within a minute, naming the provider', async () => {
    const port = await closedPort();
    const events: HarnessEvent[] = [];
    const started = Date.now();
    const result = await runHarness({
      harness,
      prompt: 'Say hello.',
      cwd: tree.dir,
      env: scrubbedEnv(tree.dir),
      modelBaseUrl: `http://127.0.0.1:${port}`,
      containedByCaller: true,
      signal: AbortSignal.timeout(80_000),
      onEvent: async (event) => {
        events.push(event);
      },
    });
    const elapsed = Date.now() - started;
    expect(result.status).toBe('failed');
    expect(result.error).toContain(`could not reach the model provider at http://127.0.0.1:${port}`);
    expect(elapsed).toBeLessThan(60_000);
    expect(events[0]?.type).toBe('stream_started');
    expect(events.some((e) => e.type === 'completed')).toBe(false);
    const fatal = events.filter((e) => e.type === 'error' && e.payload.fatal === true);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.message).toBe(result.error);
  }, 90_000);
});
