// A model provider that cannot be reached, on the whole stack with the real CLIs: the sandbox's model
// proxy cannot connect, the CLI retries a bounded number of times, and the run ends failed within a
// minute with a run.error that says the provider could not be reached; never a run that hangs. A
// system of its own: both providers point at a closed port (port 9 on the loopback, where nothing listens).
import { ownSystem } from '@ars/testenv';
import { newRunsUser } from '../support/runs.js';

const UNREACHABLE = 'http://127.0.0.1:9';

const system = ownSystem('both model providers are unreachable (OPENAI_BASE_URL and ANTHROPIC_BASE_URL name a closed port)', {
  HARNESS_CLIS: 'real',
  OPENAI_BASE_URL: `${UNREACHABLE}/v1`,
  ANTHROPIC_BASE_URL: UNREACHABLE,
});

describe.each(['codex', 'claude-code'] as const)('%s: an unreachable model provider ends the run failed within a minute', (harness) => {
  test.concurrent('failed, run.error saying the provider could not be reached; the CLI is not left retrying', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const started = Date.now();
    const run = await runs.started({ repoId, harness, prompt: 'Say hello.' });
    const { run: done, events } = await runs.waitFor(run.runId, undefined, 90_000);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(done.status).toBe('failed');
    // The proxy's answer names the configured provider; each CLI reports it in its own words around it.
    expect(done.error).toContain(`the model provider at ${UNREACHABLE} could not be reached`);
    expect(events[0]).toMatchObject({ type: 'stream_started' });
  });
});
